import PKTesting
import Testing

@testable import PKCore

/// Pending values, ProcedureResult, and `finish(withResult:)`.
struct PendingTests {

    @Test func pendingHasNoValue() {
        let pending = Pending<Int>.pending
        #expect(pending.isPending)
        #expect(pending.value == nil)
    }

    @Test func readyHasItsValue() {
        let ready = Pending.ready(3)
        #expect(!ready.isPending)
        #expect(ready.value == 3)
    }

    @Test(arguments: [Int?.none, 7])
    func initFromOptionalMapsNilToPending(_ value: Int?) {
        let pending = Pending(value)
        #expect(pending.value == value)
        #expect(pending.isPending == (value == nil))
    }

    @Test func equalityComparesValues() {
        #expect(Pending.ready("a") == .ready("a"))
        #expect(Pending.ready("a") != .ready("b"))
        #expect(Pending<String>.pending == .pending)
        #expect(Pending.ready("a") != .pending)
    }

    @Test func finishWithSuccessSetsTheOutputAndFinishesCleanly() {
        let procedure = FixedResultProcedure(result: .success("done"))
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureOutput(procedure, "done")
    }

    @Test func finishWithFailureSetsTheOutputAndFinishesWithTheError() {
        let error = TestError()
        let procedure = FixedResultProcedure(result: .failure(error))
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
        guard case .ready(.failure(let failure)) = procedure.output else {
            Issue.record("output is \(procedure.output)")
            return
        }
        #expect(failure as? TestError == error)
    }

    @Test func outputCheckReportsAPendingOutput() {
        let procedure = FixedResultProcedure(result: .success("never set"))
        let failures = ProcedureCheck.output(procedure, "never set")
        #expect(failures.contains { $0.contains("pending") })
        #expect(failures.contains { $0.contains("did not finish") })
    }
}

/// Finishes with a fixed result through `finish(withResult:)`.
final class FixedResultProcedure: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `result` is immutable; `output` is only written in execute and read after finishing,
    // ordered by the procedure's Mutex-guarded state transitions.
    nonisolated(unsafe) var output: Pending<ProcedureResult<String>> = .pending
    let result: ProcedureResult<String>

    init(result: ProcedureResult<String>) {
        self.result = result
        super.init()
    }

    override func execute() { finish(withResult: result) }
}
