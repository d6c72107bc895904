import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

/// A procedure that outputs its input doubled.
final class Doubler: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `values` is guarded by its PKMutex.
    private let values = PKMutex<(input: Pending<Int>, output: Pending<ProcedureResult<Int>>)>((.pending, .pending))
    let failsOn: Int?

    init(failsOn: Int? = nil) {
        self.failsOn = failsOn
        super.init()
    }

    var input: Pending<Int> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    var output: Pending<ProcedureResult<Int>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    override func execute() {
        guard let value = input.value else {
            finish(with: ProcedureKitError.requirementNotSatisfied())
            return
        }
        if value == failsOn {
            finish(withResult: .failure(TestError()))
        } else {
            finish(withResult: .success(value * 2))
        }
    }
}

struct ComposedProcedureTests {

    let queue = ProcedureQueue()

    @Test func runsTheWrappedOperationAndForwardsItsOutput() {
        let composed = ComposedProcedure(TestProcedure())
        queue.add(procedure: composed)
        waitForAll(composed)
        #expect(composed.operation.didExecute)
        #expect(composed.output.value.flatMap { try? $0.get() } == "Hello World")
        PKExpectProcedureFinished(composed)
    }

    @Test func forwardsInputToTheWrappedProcedure() {
        let composed = ComposedProcedure(Doubler())
        composed.input = .ready(21)
        queue.add(procedure: composed)
        waitForAll(composed)
        #expect(composed.output.value.flatMap { try? $0.get() } == 42)
    }

    @Test func cancellingItCancelsTheWrappedOperation() {
        let composed = ComposedProcedure(TestProcedure())
        composed.cancel()
        queue.add(procedure: composed)
        waitForAll(composed)
        #expect(composed.operation.isCancelled)
        #expect(!composed.operation.didExecute)
    }
}

struct GatedProcedureTests {

    let queue = ProcedureQueue()

    @Test(arguments: [true, false])
    func theGateDecidesWhetherTheOperationRuns(_ open: Bool) {
        let gated = GatedProcedure(TestProcedure()) { open }
        queue.add(procedure: gated)
        waitForAll(gated)
        #expect(gated.operation.didExecute == open)
        #expect(gated.isCancelled == !open)
        #expect(gated.errors.isEmpty)
    }

    @Test func aThrowingGateCancelsWithoutAnError() {
        let gated = GatedProcedure(TestProcedure()) { throw TestError() }
        queue.add(procedure: gated)
        waitForAll(gated)
        #expect(!gated.operation.didExecute)
        #expect(gated.isCancelled)
        #expect(gated.errors.isEmpty)
    }
}

struct IgnoreErrorsProcedureTests {

    @Test func finishesWithoutErrorsWhenTheChildFailsAndTheChildKeepsItsError() {
        let error = TestError()
        let ignoring = IgnoreErrorsProcedure(operation: TestProcedure(error: error))
        ProcedureQueue().add(procedure: ignoring)
        waitForAll(ignoring)
        PKExpectProcedureFinished(ignoring)
        #expect(ignoring.operation.error as? TestError == error)
    }
}

struct BatchProcedureTests {

    let queue = ProcedureQueue()

    @Test func outputsEachElementsResultInInputOrder() {
        let batch = BatchProcedure(input: Array(1...20)) { Doubler() }
        queue.add(procedure: batch)
        waitForAll(batch)
        PKExpectProcedureFinished(batch)
        #expect(batch.output.value.flatMap { try? $0.get() } == (1...20).map { $0 * 2 })
    }

    @Test func anEmptyInputOutputsAnEmptyArray() {
        let batch = BatchProcedure<Doubler>(input: []) { Doubler() }
        queue.add(procedure: batch)
        waitForAll(batch)
        #expect(batch.output.value.flatMap { try? $0.get() } == [])
    }

    @Test func aFailingElementFailsTheBatch() {
        let batch = BatchProcedure(input: [1, 2, 3]) { Doubler(failsOn: 2) }
        queue.add(procedure: batch)
        waitForAll(batch)
        #expect(batch.failed)
        if case .ready(.failure(let error)) = batch.output {
            #expect(error is TestError)
        } else {
            Issue.record("expected a failed output, got \(batch.output)")
        }
    }

    @Test func aPendingInputCancelsTheBatch() {
        let batch = BatchProcedure<Doubler> { Doubler() }
        queue.add(procedure: batch)
        waitForAll(batch)
        #expect(batch.isCancelled)
        #expect((batch.error as? ProcedureKitError)?.context == .requirementNotSatisfied)
    }
}
