// The README's first example: subclass Procedure, override execute(), finish, and add it to a ProcedureQueue.
// Run it with `swift run HelloProcedure`. The log lines go to standard error, the prints to standard output.
import Foundation
import PKCore

// Every Procedure subclass restates `@unchecked Sendable` (Swift 6 requires it of Operation subclasses).
// These two have no stored state, so there is nothing to guard with a lock.
class MyFirstProcedure: Procedure, @unchecked Sendable {
    // Do the work here, never call super.execute(), and always call finish().
    override func execute() {
        print("Hello World")
        finish()
    }
}

class LogExample: Procedure, @unchecked Sendable {
    override func execute() {
        // Every procedure has a log; this writes "[INFO] LogExample: Hello World! (…)" to standard error.
        log.info("Hello World!")
        finish()
    }
}

let queue = ProcedureQueue()
let myProcedure = MyFirstProcedure()
// Block observers receive the procedure itself, so the closure need not capture it.
myProcedure.addDidFinishBlockObserver { procedure, errors in
    procedure.log.info(message: "Yay! Finished!")
}
let logExample = LogExample()
logExample.addDependency(myProcedure)  // LogExample starts only after MyFirstProcedure has finished
queue.add(procedures: myProcedure, logExample)
queue.waitUntilAllOperationsAreFinished()  // blocks until both have finished, observers included
print("Finished: \(myProcedure.status), \(logExample.status)")
