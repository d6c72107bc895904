import PKCore
import PKTesting
import Testing

/// The numbers the Result Injection guide's first example loads.
private func loadNumbers() throws -> [Int] { [10, 20, 50] }

/// `Pending<ProcedureResult<V>>.get()`, and the Result Injection guide's first example, which reads outputs with it.
struct PendingGetTests {

    @Test func getReturnsTheValueOfASuccess() throws {
        let output: Pending<ProcedureResult<Int>> = .ready(.success(3))
        #expect(try output.get() == 3)
    }

    @Test func getThrowsTheErrorOfAFailure() {
        let error = TestError()
        let output: Pending<ProcedureResult<Int>> = .ready(.failure(error))
        #expect(throws: error) { try output.get() }
    }

    @Test func getThrowsRequirementNotSatisfiedWhilePending() {
        let output: Pending<ProcedureResult<Int>> = .pending
        #expect(throws: ProcedureKitError.requirementNotSatisfied()) { try output.get() }
    }

    @Test func getOnAProcedureThatHasNotRunThrowsRequirementNotSatisfied() {
        let procedure = ResultProcedure { 7 }
        #expect(throws: ProcedureKitError.requirementNotSatisfied()) { try procedure.output.get() }
    }

    @Test func getOnAFailedProcedureThrowsTheErrorItFailedWith() async {
        let error = TestError()
        let procedure = ResultProcedure<Int> { throw error }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        #expect(throws: error) { try procedure.output.get() }
        #expect(procedure.output.success == nil)
    }

    @Test func theGuidesFirstExampleReadsEightyAndTheLabel() async throws {
        // The first example of PKCore.docc/ResultInjection.md, exactly as written there.
        let queue = ProcedureQueue()
        let fetch = ResultProcedure { try loadNumbers() }  // outputs [Int], here [10, 20, 50]
        let total = ReduceProcedure(initial: 0) { (sum: Int, n: Int) in sum + n }  // [Int] -> Int
        total.injectResult(from: fetch)
        let label = TransformProcedure { (sum: Int) in "Total: \(sum)" }
        label.injectResult(from: total) { $0 * 100 }  // cheap transform, runs before `label` executes
        queue.add(procedures: fetch, total, label)
        await label.waitUntilFinished()  // `total` finished before `label` started

        let sum = total.output.success  // 80; `nil` while pending or after a failure
        let text = try label.output.get()  // "Total: 8000"; throws while pending or after a failure
        // End of the guide's example.

        #expect(sum == 80)
        #expect(text == "Total: 8000")
        // What `print(total.output.value)` shows, as the guide says: the whole result, not the value.
        #expect(String(describing: total.output.value) == "Optional(Swift.Result<Swift.Int, Swift.Error>.success(80))")
    }
}
