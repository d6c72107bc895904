import Foundation
import PKTesting
import Testing

@testable import PKCore

/// Every value procedure takes an `async throws` closure, and cancelling the procedure cancels the Task running it.
@Suite(.timeLimit(.minutes(1)))
struct AsyncClosureTests {

    /// What a closure saw: whether it started, and whether it was cancelled. Waiting for the start suspends (a
    /// blocked cooperative thread could starve the closure's own Task on a 2-core machine).
    final class Sightings: Sendable {
        private struct State {
            var started = false
            var sawCancellation = false
            var transformed = 0
            var startWaiters: [CheckedContinuation<Void, Never>] = []
        }
        private let state = PKMutex(State())

        func start() {
            let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
                state.started = true
                defer { state.startWaiters = [] }
                return state.startWaiters
            }
            for waiter in waiters { waiter.resume() }
        }

        func waitUntilStarted() async {
            await withCheckedContinuation { continuation in
                let started = state.withLock { state -> Bool in
                    if !state.started { state.startWaiters.append(continuation) }
                    return state.started
                }
                if started { continuation.resume() }
            }
        }

        func sawCancellation() { state.withLock { $0.sawCancellation = true } }
        func transformedOne() { state.withLock { $0.transformed += 1 } }

        var didStart: Bool { state.withLock { $0.started } }
        var didSeeCancellation: Bool { state.withLock { $0.sawCancellation } }
        var transformed: Int { state.withLock { $0.transformed } }
    }

    /// Signals `sightings` that it started, then waits (an hour, unless its Task is cancelled).
    static func waitForCancellation(_ sightings: Sightings) async throws {
        sightings.start()
        do {
            try await Task.sleep(for: .seconds(3600))
        } catch {
            sightings.sawCancellation()
            #expect(Task.isCancelled)
            throw error
        }
    }

    /// Adds `procedure`, whose closure waits in ``waitForCancellation(_:)``, cancels it with `errors` once the closure
    /// has started, and waits for it to finish: the closure must have seen the cancellation.
    static func cancelWhileItsClosureWaits(
        _ procedure: Procedure, _ sightings: Sightings, withErrors errors: [any Error] = []
    ) async {
        ProcedureQueue().add(procedure: procedure)
        await sightings.waitUntilStarted()
        procedure.cancel(withErrors: errors)
        await procedure.waitUntilFinished()
        #expect(sightings.didSeeCancellation)
    }

    // MARK: - AsyncTransformProcedure

    @Test func asyncTransformOutputsWhatTheClosureReturns() async throws {
        let queue = ProcedureQueue()
        // The example, exactly: an explicitly `async throws` closure.
        let double = AsyncTransformProcedure<[Int], [Int]> { input async throws -> [Int] in
            await Task.yield()
            return input.map { $0 * 2 }
        }
        double.input = .ready([1, 2, 3])
        let output = try await queue.run(double) as [Int]
        #expect(output == [2, 4, 6])
        #expect(try double.output.get() == [2, 4, 6])
    }

    @Test func asyncTransformWithoutAwaitIsStillTheAsyncForm() async throws {
        let queue = ProcedureQueue()
        let count = AsyncTransformProcedure<String, Int> { $0.count }
        count.input = .ready("four")
        #expect(try await queue.run(count) as Int == 4)
    }

    @Test func asyncTransformFinishesWithTheErrorItThrows() async {
        let queue = ProcedureQueue()
        let error = TestError()
        let failing = AsyncTransformProcedure<Int, Int> { _ in throw error }
        failing.input = .ready(1)
        await #expect(throws: error) { _ = try await queue.run(failing) as Int }
        PKExpectProcedureFinishedWithError(failing, error)
        #expect(failing.output.error is TestError)
    }

    @Test func asyncTransformWithAPendingInputDoesNotRunTheClosure() async {
        let queue = ProcedureQueue()
        let sightings = Sightings()
        let transform = AsyncTransformProcedure<Int, Int> { value in
            sightings.start()
            return value
        }
        await #expect(throws: ProcedureKitError.requirementNotSatisfied()) { _ = try await queue.run(transform) as Int }
        #expect(!sightings.didStart)
    }

    @Test func cancellingAnAsyncTransformCancelsItsTask() async throws {
        let sightings = Sightings()
        let transform = AsyncTransformProcedure<Int, Int> { value in
            try await Self.waitForCancellation(sightings)
            return value
        }
        transform.input = .ready(1)
        await Self.cancelWhileItsClosureWaits(transform, sightings)
        PKExpectProcedureCancelled(transform)
        #expect(transform.output.error is CancellationError)
    }

    @Test func theCompletionHandlerFormIsUnchanged() async throws {
        let queue = ProcedureQueue()
        let lookUp = AsyncTransformProcedure<String, Int> { name, complete in
            DispatchQueue.global().async { complete(.success(name.count)) }
        }
        lookUp.input = .ready("abc")
        #expect(try await queue.run(lookUp) as Int == 3)
    }

    // MARK: - The other async closure forms

    @Test func cancellingAnAsyncResultProcedureCancelsItsTask() async {
        let sightings = Sightings()
        let result = AsyncResultProcedure<Int> {
            try await Self.waitForCancellation(sightings)
            return 1
        }
        await Self.cancelWhileItsClosureWaits(result, sightings)
        PKExpectProcedureCancelled(result)
    }

    @Test func cancellingAnAsyncBlockProcedureCancelsItsTask() async {
        let sightings = Sightings()
        let block = AsyncBlockProcedure { try await Self.waitForCancellation(sightings) }
        let error = TestError()
        await Self.cancelWhileItsClosureWaits(block, sightings, withErrors: [error])
        PKExpectProcedureCancelledWithError(block, error)
    }

    @Test func cancellingTheAwaitingTaskReachesTheClosure() async {
        let queue = ProcedureQueue()
        let sightings = Sightings()
        let transform = AsyncTransformProcedure<Int, Int> { value in
            try await Self.waitForCancellation(sightings)
            return value
        }
        transform.input = .ready(1)
        let awaiting = Task { try await queue.run(transform) as Int }
        await sightings.waitUntilStarted()
        awaiting.cancel()
        await #expect(throws: CancellationError.self) { try await awaiting.value }
        await transform.waitUntilFinished()
        #expect(sightings.didSeeCancellation)
    }

    // MARK: - AsyncMapProcedure

    @Test func asyncMapTransformsEveryElementInOrder() async throws {
        let queue = ProcedureQueue()
        let map = AsyncMapProcedure<Int, String>(source: [3, 1, 2]) { value in
            for _ in 0..<value { await Task.yield() }
            return String(value)
        }
        #expect(try await queue.run(map) as [String] == ["3", "1", "2"])
    }

    @Test func cancellingAnAsyncMapStopsBeforeTheNextElement() async {
        let sightings = Sightings()
        let map = AsyncMapProcedure<Int, Int>(source: [1, 2, 3]) { value in
            sightings.transformedOne()
            if value == 2 { try await Self.waitForCancellation(sightings) }
            return value
        }
        await Self.cancelWhileItsClosureWaits(map, sightings)
        #expect(sightings.transformed == 2)
        PKExpectProcedureCancelled(map)
    }

    @Test func asyncMapInjectedFromAnotherProcedure() async throws {
        let queue = ProcedureQueue()
        let numbers = ResultProcedure { [1, 2, 3] }
        let squares = AsyncMapProcedure<Int, Int> { $0 * $0 }
        squares.injectResult(from: numbers)
        queue.add(procedure: numbers)
        #expect(try await queue.run(squares) as [Int] == [1, 4, 9])
    }

    // MARK: - Races

    /// A cancel at any moment around the start: each procedure finishes once, and a closure that started and was
    /// still waiting when the cancel came always sees it.
    @Test func cancelAtAnyMomentAlwaysReachesAWaitingClosure() async {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let iterations = ProcessInfo.processInfo.environment["PK_TSAN"] == nil ? 400 : 100
        let procedures = (0..<iterations).map { index in
            let transform = AsyncTransformProcedure<Int, Int> { value in
                try await Task.sleep(for: .seconds(3600))
                return value
            }
            transform.input = .ready(index)
            return transform
        }
        queue.add(procedures: procedures)
        DispatchQueue.concurrentPerform(iterations: iterations) { index in
            if index % 3 == 0 { usleep(UInt32(index % 50)) }
            procedures[index].cancel()
        }
        for procedure in procedures {
            await procedure.waitUntilFinished()
            #expect(procedure.isCancelled && procedure.isFinished)
        }
    }
}
