import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// The async/await bridges: `queue.run`, `AsyncProcedure`, `waitUntilFinished()` and `events`.
struct AsyncTests {

    @Test func runReturnsWhenTheProcedureSucceeds() async throws {
        let queue = ProcedureQueue()
        let procedure = BlockProcedure {}
        try await queue.run(procedure)
        PKExpectProcedureFinished(procedure)
    }

    @Test func runThrowsTheErrorOfAFailingBlockProcedure() async {
        let error = TestError()
        let queue = ProcedureQueue()
        await #expect(throws: error) {
            try await queue.run(BlockProcedure { throw error })
        }
    }

    @Test func runThrowsMultipleErrorsWrapped() async {
        let queue = ProcedureQueue()
        let procedure = HookProcedure { $0.finish(withErrors: [TestError(), TestError()]) }
        await #expect(throws: ProcedureKitError(context: .multipleErrors)) {
            try await queue.run(procedure)
        }
    }

    @Test func runThrowsCancellationErrorWhenCancelled() async {
        let queue = ProcedureQueue()
        let procedure = TestProcedure()
        procedure.cancel()
        await #expect(throws: CancellationError.self) {
            try await queue.run(procedure)
        }
    }

    @Test func runReturnsTheOutputOfAnOutputProcedure() async throws {
        let queue = ProcedureQueue()
        let procedure = TestProcedure()
        procedure.input = .ready("async")
        // The annotation is needed: without it `run(_: Procedure)` (returning Void) wins overload resolution.
        let output: String = try await queue.run(procedure)
        #expect(output == "Hello async")
    }

    @Test func runThrowsTheFailureOfAnOutputProcedure() async {
        let error = TestError()
        let queue = ProcedureQueue()
        let procedure = TestProcedure(error: error)
        await #expect(throws: error) {
            _ = try await queue.run(procedure)
        }
    }

    @Test func cancellingTheAwaitingTaskCancelsTheProcedure() async {
        let queue = ProcedureQueue()
        let started = AsyncStream.makeStream(of: Void.self)
        let procedure = HookProcedure { procedure in
            // The observer first: a cancel that came before it would never reach it, and the procedure would
            // never finish (the test hung so under ThreadSanitizer, where the test's cancel won that race).
            procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
            started.continuation.yield()
        }
        let task = Task { try await queue.run(procedure) }
        for await _ in started.stream { break }
        task.cancel()
        let result = await task.result
        #expect(throws: CancellationError.self) { try result.get() }
        #expect(await waitForFinish(procedure, timeout: hangTimeout))
        #expect(procedure.isCancelled)
        PKExpectProcedureError(procedure, equals: ProcedureKitError.taskCancelled())
    }

    @Test func cancellingTheAwaitingTaskAcceptsTheCancelAtOnceAndReactsOffTheCancellingThread() async {
        // Swift runs a task's cancellation handler under the task's status lock: the procedure's DidCancel work
        // (user code) must not run there, on the thread calling `cancel()`.
        let queue = ProcedureQueue()
        let started = AsyncStream.makeStream(of: Void.self)
        let observerThread = PKMutex<pthread_t?>(nil)
        let procedure = HookProcedure { procedure in
            procedure.addDidCancelBlockObserver { procedure, _ in
                observerThread.withLock { $0 = pthread_self() }
                procedure.finish()
            }
            // Signalled once execute() has returned and the procedure's event context is idle.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(5)) { started.continuation.yield() }
        }
        let task = Task { try await queue.run(procedure) }
        for await _ in started.stream { break }
        let cancellingThread = pthread_self()
        task.cancel()
        #expect(procedure.isCancelled)
        _ = await task.result
        #expect(await waitForFinish(procedure, timeout: hangTimeout))
        let reactedOn = observerThread.withLock { $0 }
        #expect(reactedOn != nil)
        if let reactedOn { #expect(pthread_equal(reactedOn, cancellingThread) == 0) }
        PKExpectProcedureError(procedure, equals: ProcedureKitError.taskCancelled())
    }

    @Test func taskCancelledProceduresThatSynchronizeWithEachOtherBothFinish() async {
        // `a` reacts to its cancel with an observer synchronized with `b`: it waits for `b`'s event context, which
        // `b`'s accepted cancel keeps until `b`'s own reaction runs. Reactions queued one behind the other (one
        // process-wide serial queue) never ran again.
        for _ in 0..<20 {
            let queue = ProcedureQueue()
            let executed = AsyncStream.makeStream(of: Void.self)
            let b = HookProcedure(name: "b") { _ in }
            b.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
            let a = HookProcedure(name: "a") { _ in }
            a.addDidCancelBlockObserver(synchronizedWith: b) { procedure, _ in procedure.finish() }
            for procedure in [a, b] { procedure.addDidExecuteBlockObserver { _ in executed.continuation.yield() } }
            let task = Task { await queue.results(of: [a, b]) }
            var count = 0
            for await _ in executed.stream {
                count += 1
                if count == 2 { break }
            }
            // Give both event contexts the moment to fall idle, so each accepted cancel owns its context.
            try? await Task.sleep(for: .milliseconds(5))
            task.cancel()
            guard await waitForFinish([a, b], timeout: hangTimeout) else {
                Issue.record("the task-cancelled procedures deadlocked: a finished \(a.isFinished), b \(b.isFinished)")
                return
            }
            let results = await task.value
            #expect(results.count == 2)
            PKExpectProcedureError(a, equals: ProcedureKitError.taskCancelled())
            PKExpectProcedureError(b, equals: ProcedureKitError.taskCancelled())
        }
    }

    @Test func aSlowCancelHookDoesNotHoldUpAnotherTasksCancel() async {
        // The first procedure's cancel hook blocks until the second procedure has finished; the second finishes
        // only by reacting to its own task's cancel. With one queue for every reaction, the second waited for the
        // hook, which gave up after `hangTimeout`.
        let queue = ProcedureQueue()
        let executed = AsyncStream.makeStream(of: Void.self)
        let secondFinished = DispatchSemaphore(value: 0)
        let hookSawSecondFinish = Atomic<Bool>(false)
        let second = HookProcedure(name: "second") { _ in }
        second.addDidCancelBlockObserver { procedure, _ in procedure.finish() }
        second.addDidFinishBlockObserver { _, _ in secondFinished.signal() }
        let first = HookProcedure(name: "first") { _ in }
        first.addDidCancelBlockObserver { procedure, _ in
            let waited = secondFinished.wait(timeout: .now() + hangTimeout)
            hookSawSecondFinish.store(waited == .success, ordering: .relaxed)
            procedure.finish()
        }
        for procedure in [first, second] { procedure.addDidExecuteBlockObserver { _ in executed.continuation.yield() } }
        let firstTask = Task { try await queue.run(first) }
        let secondTask = Task { try await queue.run(second) }
        var count = 0
        for await _ in executed.stream {
            count += 1
            if count == 2 { break }
        }
        try? await Task.sleep(for: .milliseconds(5))
        firstTask.cancel()
        secondTask.cancel()
        #expect(await waitForFinish([first, second], timeout: 2 * hangTimeout))
        let sawSecondFinish = hookSawSecondFinish.load(ordering: .relaxed)
        #expect(sawSecondFinish)
        _ = await (firstTask.result, secondTask.result)
    }

    @Test func asyncBlockProcedureRunsAndFinishes() async throws {
        let ran = Atomic<Bool>(false)
        let queue = ProcedureQueue()
        let procedure = AsyncBlockProcedure {
            await Task.yield()
            ran.store(true, ordering: .relaxed)
        }
        try await queue.run(procedure)
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
        PKExpectProcedureFinished(procedure)
    }

    @Test func asyncBlockProcedureThatThrowsFinishesWithTheError() async {
        let error = TestError()
        let queue = ProcedureQueue()
        let procedure = AsyncBlockProcedure { throw error }
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        PKExpectProcedureFinished(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    @Test func cancellingAnAsyncProcedureCancelsItsTask() async {
        let queue = ProcedureQueue()
        let sawCancellation = Atomic<Bool>(false)
        let started = AsyncStream.makeStream(of: Void.self)
        let procedure = AsyncBlockProcedure {
            started.continuation.yield()
            do {
                try await Task.sleep(for: .seconds(3600))
            } catch {
                sawCancellation.store(Task.isCancelled, ordering: .relaxed)
                throw error
            }
        }
        queue.add(procedure: procedure)
        for await _ in started.stream { break }
        procedure.cancel()
        #expect(await waitForFinish(procedure, timeout: hangTimeout))
        let sawIt = sawCancellation.load(ordering: .relaxed)
        #expect(sawIt)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func asyncProcedureCancelledBeforeStartDoesNotRun() async {
        let ran = Atomic<Bool>(false)
        let procedure = AsyncBlockProcedure { ran.store(true, ordering: .relaxed) }
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func waitUntilFinishedResumesAfterFinishAndAtOnceWhenFinished() async {
        let procedure = TestProcedure(delay: 0.01)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        #expect(procedure.isFinished)
        #expect(procedure.procedureDidFinishCalled)
        await procedure.waitUntilFinished()
    }

    @Test func everyTaskAwaitingOneProcedureResumesOnceItFinishes() async {
        let procedure = TestProcedure()
        let waiters = 5
        let resumed = ResumeCount()
        await withTaskGroup(of: Void.self) { group in
            for _ in 0..<waiters {
                group.addTask {
                    await procedure.waitUntilFinished()
                    resumed.value.add(1, ordering: .relaxed)
                }
            }
            // Every task is suspended on the unfinished procedure before it is enqueued (so the first waiter is
            // kept inline and the others in the list); bounded, in case a task never gets there.
            let deadline = Date().addingTimeInterval(hangTimeout)
            while procedure.storage.withLock({ $0.finishWaiters.count }) < waiters, Date() < deadline {
                await Task.yield()
            }
            #expect(procedure.storage.withLock { $0.finishWaiters.count } == waiters)
            #expect(resumed.value.load(ordering: .relaxed) == 0)
            ProcedureQueue().add(procedure: procedure)
        }
        #expect(resumed.value.load(ordering: .relaxed) == waiters)
        #expect(procedure.isFinished)
    }

    @Test func eventsYieldTheLifecycleInOrderAndEnd() async {
        let procedure = TestProcedure()
        let events = procedure.lifecycleEvents()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        var names: [String] = []
        for await event in events { names.append(event.description) }
        #expect(names == ["didAttach", "willExecute", "didExecute", "willFinish", "didFinish"])
    }

    @Test func eventsOfACancelledProcedureIncludeDidCancelWithItsErrors() async {
        let error = TestError()
        let procedure = TestProcedure()
        let events = procedure.lifecycleEvents()
        procedure.cancel(with: error)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        var names: [String] = []
        var cancelErrors: [TestError] = []
        for await event in events {
            names.append(event.description)
            if case .didCancel(let errors) = event { cancelErrors = errors.compactMap { $0 as? TestError } }
        }
        #expect(names == ["didAttach", "didCancel", "willFinish", "didFinish"])
        #expect(cancelErrors == [error])
    }

    @Test func eventsTakenAfterFinishYieldDidAttachAndDidFinish() async {
        let procedure = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        var names: [String] = []
        for await event in procedure.lifecycleEvents() { names.append(event.description) }
        #expect(names == ["didAttach", "didFinish"])
    }

    @Test func waitForFinishTimesOutWithoutLeavingTheProcedureBehind() async {
        let procedure = TestProcedure()  // never enqueued, so never finishes
        #expect(await waitForFinish(procedure, timeout: 0.01) == false)
        #expect(!procedure.isFinished)
    }
}

/// A counter tasks can share.
private final class ResumeCount: Sendable {
    let value = Atomic<Int>(0)
}
