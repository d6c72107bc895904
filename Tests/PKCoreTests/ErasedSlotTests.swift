import PKTesting
import Testing

@testable import PKCore

/// The generic procedures store their input and output erased (ErasedSlot); these check that every kind of type
/// comes back as it went in, through the typed properties and through the engine.
struct ErasedSlotTests {

    private final class Payload: Sendable {
        let value: Int
        init(_ value: Int) { self.value = value }
    }

    private struct Failure: Error, Equatable {}

    /// Runs `procedure` on a queue of its own and waits for it (recording an issue after the hang timeout).
    private func finish(_ procedure: Procedure) async {
        ProcedureQueue().add(procedure: procedure)
        if !(await waitForFinish([procedure], timeout: hangTimeout)) {
            Issue.record("\(procedure.procedureName) did not finish")
        }
    }

    @Test func anOptionalOutputThatIsNilIsReadyNotPending() async {
        let procedure = ResultProcedure<Int?> { nil }
        await finish(procedure)
        PKExpectProcedureFinished(procedure)
        guard case .ready(.success(let value)) = procedure.output else {
            Issue.record("expected a ready success, got \(procedure.output)")
            return
        }
        #expect(value == nil)
    }

    @Test func aClassOutputIsTheSameInstance() async {
        let payload = Payload(7)
        let procedure = ResultProcedure { payload }
        await finish(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.output.success === payload)
    }

    @Test func anExistentialOutputKeepsItsDynamicType() async {
        let procedure = ResultProcedure<any Sendable> { 42 }
        await finish(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.output.success as? Int == 42)
    }

    @Test func aThrownErrorIsTheOutputsFailureAndTheProcedures() async {
        let procedure = ResultProcedure<Int> { throw Failure() }
        await finish(procedure)
        PKExpectProcedureFinishedWithErrors(procedure, count: 1)
        #expect(procedure.output.error as? Failure == Failure())
        #expect(procedure.error as? Failure == Failure())
    }

    @Test func anOutputSetFromOutsideReadsBackInEveryState() async {
        let procedure = AsyncResultProcedure<[String]> { _ in }
        #expect(procedure.output.isPending)
        procedure.output = .ready(.success(["a", "b"]))
        #expect(procedure.output.success == ["a", "b"])
        procedure.output = .ready(.failure(Failure()))
        #expect(procedure.output.error as? Failure == Failure())
        procedure.output = .pending
        #expect(procedure.output.isPending)
    }

    @Test func aTransformReadsItsInputOfAnyType() async {
        let procedure = TransformProcedure<(Int, String), String> { "\($0.0)\($0.1)" }
        procedure.input = .ready((1, "x"))
        #expect(procedure.input.value?.1 == "x")
        await finish(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.output.success == "1x")
    }

    @Test func aTransformWhoseInputIsPendingFailsWithoutRunning() async {
        let ran = PKMutex(false)
        let procedure = TransformProcedure<Int, Int> { value in
            ran.withLock { $0 = true }
            return value
        }
        await finish(procedure)
        PKExpectProcedureFinishedWithErrors(procedure, count: 1)
        #expect(procedure.output.error as? ProcedureKitError == ProcedureKitError.requirementNotSatisfied())
        #expect(!ran.withLock { $0 })
    }

    @Test func aReplacedValueIsReleased() async {
        let leaks = LeakCheck()
        let procedure = AsyncTransformProcedure<Payload, Int> { payload, complete in complete(.success(payload.value)) }
        do {
            let first = Payload(1)
            leaks.track([first])
            procedure.input = .ready(first)
            procedure.input = .ready(Payload(2))
        }
        await PKExpectReleased(leaks)
        await finish(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.output.success == 2)
    }

    @Test func aResultProcedureReleasesItsBlockOnceItHasRun() async {
        let leaks = LeakCheck()
        let procedure: ResultProcedure<Int>
        do {
            let captured = Payload(3)
            leaks.track([captured])
            procedure = ResultProcedure { captured.value }
        }
        await finish(procedure)
        PKExpectProcedureFinished(procedure)
        await PKExpectReleased(leaks)
        #expect(procedure.output.success == 3)
    }
}
