import PKCore
import PKTesting
import XCTest

/// The XCTest front ends of PKTesting, used the way a ProcedureKit user's XCTest suite uses them: no special
/// base class, a queue per test, assertions after waiting.
final class PKAssertXCTests: XCTestCase {

    private let queue = ProcedureQueue()

    private func run(_ procedures: Procedure...) {
        queue.add(procedures: procedures)
        XCTAssertTrue(ProcedureWaiter.wait(for: procedures, timeout: 10), "procedures did not finish")
    }

    func testFinishedProcedurePassesFinishedAssertion() {
        let procedure = TestProcedure()
        run(procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureOutput(procedure, "Hello World")
    }

    func testFailedProcedurePassesErrorAssertions() {
        let error = TestError()
        let procedure = TestProcedure(error: error)
        run(procedure)
        PKAssertProcedureFinished(procedure, withErrors: true)
        PKAssertProcedureFinishedWithErrors(procedure, count: 1)
        PKAssertProcedureError(procedure, equals: error)
    }

    func testCancelledProcedurePassesCancelledAssertion() {
        let procedure = TestProcedure()
        procedure.cancel()
        run(procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func testRecorderSeesNoConcurrentEventsAndProceduresAreReleased() {
        let recorder = EventRecorder()
        let leaks = LeakCheck()
        do {
            let procedure = TestProcedure()
            procedure.addObserver(recorder)
            leaks.track(procedure)
            run(procedure)
        }
        PKAssertProcedureNoConcurrentEvents(recorder)
        PKAssertReleased(leaks)
    }

    func testAssertionsReportFailuresForTheWrongOutcome() {
        let procedure = TestProcedure(error: TestError())
        run(procedure)
        // The checks behind the assertions find the mismatch; the assertion itself would fail this test.
        XCTAssertFalse(ProcedureCheck.finished(procedure).isEmpty)
        XCTAssertFalse(ProcedureCheck.cancelled(procedure).isEmpty)
        XCTAssertFalse(ProcedureCheck.finishedWithErrors(procedure, count: 0).isEmpty)
    }
}
