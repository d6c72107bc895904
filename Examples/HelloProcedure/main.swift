// The README's first example: subclass Procedure, override execute(), finish, and add it to a ProcedureQueue.
import Foundation
import PKCore

class MyFirstProcedure: Procedure, @unchecked Sendable {
    override func execute() {
        print("Hello World")
        finish()
    }
}

class LogExample: Procedure, @unchecked Sendable {
    override func execute() {
        log.info("Hello World!")
        finish()
    }
}

let queue = ProcedureQueue()
let myProcedure = MyFirstProcedure()
myProcedure.addDidFinishBlockObserver { procedure, errors in
    procedure.log.info(message: "Yay! Finished!")
}
let logExample = LogExample()
logExample.addDependency(myProcedure)
queue.add(procedures: myProcedure, logExample)
queue.waitUntilAllOperationsAreFinished()
print("Finished: \(myProcedure.status), \(logExample.status)")
