import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

private func output<P: OutputProcedure>(_ procedure: P) -> P.Output? {
    procedure.output.value.flatMap { try? $0.get() }
}

private func outputError<P: OutputProcedure>(_ procedure: P) -> (any Error)? {
    guard case .ready(.failure(let error)) = procedure.output else { return nil }
    return error
}

struct ResultProcedureTests {

    @Test func runReturnsTheBlocksValue() async throws {
        let queue = ProcedureQueue()
        let value = try await queue.run(ResultProcedure { 42 })
        #expect(value == 42)
    }

    @Test func throwingBlockFinishesWithTheErrorAsOutputAndError() {
        let error = TestError()
        let procedure = ResultProcedure<Int> { throw error }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinishedWithErrors(procedure, count: 1)
        PKExpectProcedureError(procedure, equals: error)
        #expect(outputError(procedure) as? TestError == error)
    }

    @Test func cancelledBeforeExecutingNeverRunsTheBlockAndLeavesTheOutputPending() {
        let ran = Atomic<Bool>(false)
        let procedure = ResultProcedure {
            ran.store(true, ordering: .relaxed)
            return 1
        }
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
        #expect(procedure.output.isPending)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func blockIsReleasedOnceItHasRun() async {
        final class Captured: Sendable {}
        let leaks = LeakCheck()
        let procedure: ResultProcedure<Int>
        do {
            let captured = Captured()
            leaks.track(captured, name: "captured")
            procedure = ResultProcedure {
                _ = captured
                return 1
            }
        }
        let queue = ProcedureQueue()
        _ = try? await queue.run(procedure)
        await PKExpectReleased(leaks)
        withExtendedLifetime(procedure) {}
    }
}

struct AsyncResultProcedureTests {

    @Test func completionFromAnotherThreadSetsTheOutput() {
        let procedure = AsyncResultProcedure<String> { complete in
            DispatchQueue.global().async { complete(.success("done")) }
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureOutput(procedure, "done")
    }

    @Test func failedCompletionFinishesWithTheError() {
        let error = TestError()
        let procedure = AsyncResultProcedure<String> { complete in complete(.failure(error)) }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureError(procedure, equals: error)
        #expect(outputError(procedure) as? TestError == error)
    }

    @Test func onlyTheFirstCompletionCounts() {
        let procedure = AsyncResultProcedure<Int> { complete in
            complete(.success(1))
            complete(.success(2))
            complete(.failure(TestError()))
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureOutput(procedure, 1)
    }

    @Test func asyncBlockValueBecomesTheOutput() async throws {
        let procedure = AsyncResultProcedure {
            await Task.yield()
            return "async"
        }
        let value = try await ProcedureQueue().run(procedure)
        #expect(value == "async")
    }

    @Test func throwingAsyncBlockFinishesWithTheError() async {
        let error = TestError()
        let procedure = AsyncResultProcedure<Int> { throw error }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        #expect(await waitForFinish(procedure, timeout: hangTimeout))
        PKExpectProcedureError(procedure, equals: error)
    }

    @Test func cancellingCancelsTheTaskAndFinishesCancelled() async {
        let started = AsyncStream<Void>.makeStream()
        let procedure = AsyncResultProcedure<Int> {
            started.continuation.yield()
            try await Task.sleep(for: .seconds(3600))
            return 1
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        for await _ in started.stream { break }
        procedure.cancel()
        #expect(await waitForFinish(procedure, timeout: hangTimeout))
        PKExpectProcedureCancelled(procedure)
        #expect(outputError(procedure) is CancellationError)
    }

    @Test func finishedAsyncResultProcedureIsReleased() async {
        let leaks = LeakCheck()
        do {
            let procedure = AsyncResultProcedure { 5 }
            leaks.track(procedure, name: "async result")
            _ = try? await ProcedureQueue().run(procedure)
        }
        await PKExpectReleased(leaks)
    }
}

struct TransformProcedureTests {

    @Test func transformsTheInput() {
        let procedure = TransformProcedure { (value: Int) in "#\(value)" }
        procedure.input = .ready(7)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureOutput(procedure, "#7")
    }

    @Test func throwingTransformFinishesWithTheError() {
        let error = TestError()
        let procedure = TransformProcedure { (_: Int) throws -> String in throw error }
        procedure.input = .ready(7)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureError(procedure, equals: error)
        #expect(outputError(procedure) as? TestError == error)
    }

    @Test func pendingInputFinishesWithRequirementNotSatisfied() {
        let ran = Atomic<Bool>(false)
        let procedure = TransformProcedure { (value: Int) -> Int in
            ran.store(true, ordering: .relaxed)
            return value
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
        PKExpectProcedureFinishedWithErrors(procedure, count: 1)
        PKExpectProcedureError(procedure, equals: ProcedureKitError.requirementNotSatisfied())
        #expect(outputError(procedure) as? ProcedureKitError == ProcedureKitError.requirementNotSatisfied())
    }
}

struct AsyncTransformProcedureTests {

    @Test func transformsTheInputAsynchronously() {
        let procedure = AsyncTransformProcedure<Int, Int> { value, complete in
            DispatchQueue.global().async { complete(.success(value * 3)) }
        }
        procedure.input = .ready(5)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureOutput(procedure, 15)
    }

    @Test func failedCompletionFinishesWithTheError() {
        let error = TestError()
        let procedure = AsyncTransformProcedure<Int, Int> { _, complete in complete(.failure(error)) }
        procedure.input = .ready(5)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureError(procedure, equals: error)
    }

    @Test func pendingInputFinishesWithRequirementNotSatisfiedWithoutCallingTheTransform() {
        let ran = Atomic<Bool>(false)
        let procedure = AsyncTransformProcedure<Int, Int> { value, complete in
            ran.store(true, ordering: .relaxed)
            complete(.success(value))
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let ranValue = ran.load(ordering: .relaxed)
        #expect(!ranValue)
        PKExpectProcedureError(procedure, equals: ProcedureKitError.requirementNotSatisfied())
    }

    @Test func injectedInputReachesTheTransform() {
        let source = ResultProcedure { "abc" }
        let count = AsyncTransformProcedure<String, Int> { value, complete in complete(.success(value.count)) }
        count.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.add(procedures: source, count)
        waitForAll(source, count)
        PKExpectProcedureOutput(count, 3)
    }
}

/// Map, FlatMap, Filter and Reduce: happy path, error path and pending input, for each.
struct CollectionProceduresTests {

    private static func run<P: OutputProcedure>(_ procedure: P) -> P {
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        return procedure
    }

    @Test func mapTransformsEachElement() {
        let procedure = MapProcedure { (value: Int) in value * value }
        procedure.input = .ready([1, 2, 3])
        PKExpectProcedureOutput(Self.run(procedure), [1, 4, 9])
    }

    @Test func flatMapDropsNils() {
        let procedure = FlatMapProcedure { (text: String) in Int(text) }
        procedure.input = .ready(["1", "two", "3"])
        PKExpectProcedureOutput(Self.run(procedure), [1, 3])
    }

    @Test func filterKeepsMatchingElementsInOrder() {
        let procedure = FilterProcedure { (value: Int) in value > 2 }
        procedure.input = .ready([5, 1, 3, 2])
        PKExpectProcedureOutput(Self.run(procedure), [5, 3])
    }

    @Test func reduceCombinesFromTheInitialValue() {
        let procedure = ReduceProcedure(initial: "") { (partial: String, value: Int) in partial + "\(value)" }
        procedure.input = .ready([1, 2, 3])
        PKExpectProcedureOutput(Self.run(procedure), "123")
    }

    @Test func throwingClosuresFinishWithTheError() {
        let error = TestError()
        let map = MapProcedure { (_: Int) throws -> Int in throw error }
        let flatMap = FlatMapProcedure { (_: Int) throws -> Int? in throw error }
        let filter = FilterProcedure { (_: Int) throws -> Bool in throw error }
        let reduce = ReduceProcedure(initial: 0) { (_: Int, _: Int) throws -> Int in throw error }
        map.input = .ready([1])
        flatMap.input = .ready([1])
        filter.input = .ready([1])
        reduce.input = .ready([1])
        let queue = ProcedureQueue()
        queue.add(procedures: map, flatMap, filter, reduce)
        waitForAll(map, flatMap, filter, reduce)
        for procedure in [map, flatMap, filter, reduce] as [Procedure] {
            PKExpectProcedureError(procedure, equals: error)
        }
    }

    @Test func pendingInputFinishesWithRequirementNotSatisfied() {
        let map = MapProcedure { (value: Int) in value }
        let flatMap = FlatMapProcedure { (value: Int) -> Int? in value }
        let filter = FilterProcedure { (_: Int) in true }
        let reduce = ReduceProcedure(initial: 0) { (partial: Int, value: Int) in partial + value }
        let queue = ProcedureQueue()
        queue.add(procedures: map, flatMap, filter, reduce)
        waitForAll(map, flatMap, filter, reduce)
        for procedure in [map, flatMap, filter, reduce] as [Procedure] {
            PKExpectProcedureError(procedure, equals: ProcedureKitError.requirementNotSatisfied())
        }
    }
}

struct TypeErasureTests {

    @Test func anyOutputProcedureRunsTheWrappedProcedureAndExposesItsOutput() async throws {
        let base = ResultProcedure { 42 }
        let wrapper = AnyOutputProcedure(base)
        let value = try await ProcedureQueue().run(wrapper)
        #expect(value == 42)
        PKExpectProcedureFinished(base)
    }

    @Test func anyOutputProcedureWorksOnASerialQueue() {
        let base = ResultProcedure { "serial" }
        let wrapper = AnyOutputProcedure(base)
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        queue.add(procedure: wrapper)
        waitForAll(wrapper)
        PKExpectProcedureOutput(wrapper, "serial")
    }

    @Test func anyOutputProcedureFinishesWithTheWrappedError() {
        let error = TestError()
        let wrapper = AnyOutputProcedure(ResultProcedure<Int> { throw error })
        let queue = ProcedureQueue()
        queue.add(procedure: wrapper)
        waitForAll(wrapper)
        PKExpectProcedureFinishedWithErrors(wrapper, count: 1)
        PKExpectProcedureError(wrapper, equals: error)
        #expect(outputError(wrapper) as? TestError == error)
    }

    @Test func cancellingTheWrapperCancelsTheWrappedProcedure() {
        let error = TestError()
        let base = AsyncResultProcedure<Int> { _ in }  // never completes by itself
        base.addDidCancelBlockObserver { base, _ in base.finish() }
        let wrapper = AnyOutputProcedure(base)
        let started = DispatchSemaphore(value: 0)
        base.addWillExecuteBlockObserver { _, _ in started.signal() }
        let queue = ProcedureQueue()
        queue.add(procedure: wrapper)
        waitFor(started, "the wrapped procedure to start")
        wrapper.cancel(with: error)
        waitForAll(wrapper, base)
        PKExpectProcedureCancelled(base, withErrors: true)
        PKExpectProcedureCancelled(wrapper, withErrors: true)
        PKExpectProcedureError(wrapper, equals: error)
    }

    @Test func wrappedProcedureCancelledByItselfCancelsTheWrapper() {
        let base = ResultProcedure { 1 }
        base.cancel()
        let wrapper = AnyOutputProcedure(base)
        let queue = ProcedureQueue()
        queue.add(procedure: wrapper)
        waitForAll(wrapper)
        PKExpectProcedureCancelled(wrapper)
    }

    @Test func resultsCanBeInjectedFromAnAnyOutputProcedure() {
        let source = AnyOutputProcedure(ResultProcedure { 20 })
        let next = TransformProcedure { (value: Int) in value + 1 }
        next.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.add(procedures: source, next)
        waitForAll(source, next)
        PKExpectProcedureOutput(next, 21)
    }

    @Test func anyInputProcedureForwardsItsInputToTheWrappedProcedure() {
        let base = TestProcedure(name: "Base")
        let wrapper = AnyInputProcedure(base)
        let source = ResultProcedure { "wrapped" }
        wrapper.injectResult(from: source)
        let queue = ProcedureQueue()
        queue.add(procedures: source, wrapper)
        waitForAll(source, wrapper)
        #expect(base.input == .ready("wrapped"))
        PKExpectProcedureOutput(base, "Hello wrapped")
        PKExpectProcedureFinished(wrapper)
    }

    @Test func anyProcedureExposesInputAndOutput() {
        let wrapper = AnyProcedure(TransformProcedure { (value: Int) in value * 2 })
        wrapper.input = .ready(4)
        let queue = ProcedureQueue()
        queue.add(procedure: wrapper)
        waitForAll(wrapper)
        PKExpectProcedureOutput(wrapper, 8)
    }

    @Test func wrapperAndWrappedProcedureAreReleasedAfterFinishing() async {
        let leaks = LeakCheck()
        do {
            let base = ResultProcedure { 1 }
            let wrapper = AnyOutputProcedure(base)
            leaks.track(base, name: "base")
            leaks.track(wrapper, name: "wrapper")
            _ = try? await ProcedureQueue().run(wrapper)
        }
        await PKExpectReleased(leaks)
    }

    @Test func unstartedWrapperAndWrappedProcedureAreReleased() async {
        let leaks = LeakCheck()
        do {
            let base = ResultProcedure { 1 }
            let wrapper = AnyOutputProcedure(base)
            wrapper.cancel()
            leaks.track([base, wrapper])
        }
        await PKExpectReleased(leaks)
    }
}
