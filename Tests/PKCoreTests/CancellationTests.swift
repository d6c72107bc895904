import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// Cancellation at every stage of the lifecycle: the final state, the errors, and whether execute ran.
struct CancellationTests {

    @Test func cancelBeforeStartFinishesWithoutExecuting() {
        let procedure = TestProcedure()
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.procedureDidCancelCalled)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func cancelWithErrorBeforeStartKeepsTheError() {
        let error = TestError()
        let procedure = TestProcedure()
        procedure.cancel(with: error)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    @Test func cancelWhileWaitingOnADependencyFinishesWithoutWaitingOrExecuting() {
        let release = DispatchSemaphore(value: 0)
        let dependency = HookProcedure(name: "Dependency") { procedure in
            DispatchQueue.global().async {
                release.wait()
                procedure.finish()
            }
        }
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        let queue = ProcedureQueue()
        queue.add(procedures: dependency, procedure)
        #expect(procedure.isPending)
        procedure.cancel()
        waitForAll(procedure)
        #expect(!dependency.isFinished)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        release.signal()
        waitForAll(dependency)
    }

    @Test func cancelInWillExecuteObserverSkipsExecute() {
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver { procedure, _ in procedure.cancel() }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test
    func cancelInWillExecuteObserverDeliversDidCancelBeforeFinishing() {
        let recorder = EventRecorder()
        let trail = Trail()
        let procedure = HookProcedure(trail: trail)
        procedure.addWillExecuteBlockObserver { procedure, _ in procedure.cancel() }
        procedure.addObserver(recorder)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitUntilEmpty(queue)
        #expect(recorder.kinds(for: procedure) == [.didAttach, .willExecute, .didCancel, .willFinish, .didFinish])
        #expect(
            trail.entries == ["procedureDidCancel(isFinished: false)", "procedureWillFinish", "procedureDidFinish"])
    }

    @Test func cancelFromAnotherThreadWhileWillExecuteTokenIsHeldSkipsExecute() {
        let held = PKMutex<PendingEvent?>(nil)
        let willExecute = DispatchSemaphore(value: 0)
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver { _, token in
            held.withLock { $0 = token }
            willExecute.signal()
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitFor(willExecute, "willExecute")
        procedure.cancel()
        held.withLock { $0 = nil }
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func cancelDuringExecuteLetsExecuteFinishAndEndsCancelled() {
        let executing = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let procedure = HookProcedure { procedure in
            executing.signal()
            DispatchQueue.global().async {
                cancelled.wait()
                procedure.finish()
            }
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitFor(executing, "execute")
        procedure.cancel(with: TestError())
        cancelled.signal()
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
    }

    @Test func didCancelObserverCallingFinishWithErrorDuringExecuteEndsCancelledWithIt() {
        let error = TestError()
        let executed = DispatchSemaphore(value: 0)
        let procedure = HookProcedure { _ in executed.signal() }
        procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish(with: error) }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitFor(executed, "execute")
        procedure.cancel()
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    @Test func cancelAfterFinishIsIgnored() {
        let procedure = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        procedure.cancel(with: TestError())
        #expect(!procedure.isCancelled)
        #expect(!procedure.procedureDidCancelCalled)
        PKExpectProcedureFinished(procedure)
    }

    @Test func secondCancelIsIgnoredAndKeepsTheFirstErrors() {
        let first = TestError()
        let recorder = EventRecorder()
        let procedure = TestProcedure()
        procedure.addObserver(recorder)
        procedure.cancel(with: first)
        procedure.cancel(with: TestError())
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.errors.compactMap { $0 as? TestError } == [first])
        #expect(recorder.count(of: .didCancel) == 1)
    }

    @Test func didCancelObserversReceiveTheCancelErrors() {
        let error = TestError()
        let received = PKMutex<[TestError]>([])
        let procedure = TestProcedure()
        procedure.addDidCancelBlockObserver { _, errors in
            let typed = errors.compactMap { $0 as? TestError }
            received.withLock { $0 = typed }
        }
        procedure.cancel(with: error)
        #expect(received.withLock { $0 } == [error])
    }

    @Test func cancellingADependencyDoesNotCancelTheDependent() {
        let dependency = TestProcedure(name: "Dependency")
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        dependency.cancel()
        let queue = ProcedureQueue()
        queue.add(procedures: dependency, procedure)
        waitForAll(dependency, procedure)
        PKExpectProcedureCancelled(dependency)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    /// The start event and a cancel are queued behind an event in progress, in that order: the start sees the
    /// procedure cancelled and finishes it, but only after the queued DidCancel work, so DidCancel observers hear
    /// of the cancel before the procedure finishes (and while they are still attached).
    @Test func cancelQueuedBehindTheStartReachesDidCancelObserversBeforeTheFinish() {
        GlobalLogSettings.with(enabled: false) {  // starting without a queue logs a warning
            let recorder = EventRecorder()
            let procedure = TestProcedure()
            procedure.addObserver(recorder)
            // Its didAttach runs inside the procedure's event context, so both calls queue their events.
            procedure.addObserver(StartThenCancelOnAttach())
            guard waitForAll(procedure) else { return }
            #expect(recorder.kinds(for: procedure) == [.didAttach, .didCancel, .willFinish, .didFinish])
            #expect(!procedure.didExecute)
        }
    }
}

/// On attach, starts the procedure and then cancels it, from inside the procedure's event context.
private struct StartThenCancelOnAttach: ProcedureObserver {
    func didAttach(to procedure: Procedure) {
        procedure.start()
        procedure.cancel()
    }
}
