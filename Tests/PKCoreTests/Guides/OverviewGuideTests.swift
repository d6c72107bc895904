import PKCore
import PKTesting
import Testing

// The code of PKCore's root page (PKCore.docc/PKCore.md), as written there, so that it compiles and runs: keep the
// two in step (Scripts/docs.sh checks that every example of the catalogue is in a test).

private final class Greet: Procedure, @unchecked Sendable {
    override func execute() {
        print("Hello World")
        finish()
    }
}

struct OverviewGuideTests {

    @Test func greetRunsAndLogs() {
        let queue = ProcedureQueue()
        let greet = Greet()
        greet.addDidFinishBlockObserver { procedure, errors in
            procedure.log.info("finished with \(errors.count) error(s)")
        }
        queue.add(procedure: greet)
        queue.waitUntilAllOperationsAreFinished()
        // End of the page's example.
        PKExpectProcedureFinished(greet)
    }
}
