import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// BEHAVIOUR.md §13, items 1–7 and 20–29: the lifecycle as a user sees it.
struct LifecycleTests {

    // §13.1
    @Test func executeThatFinishesRunsOnceAndEndsFinishedWithoutError() {
        let queue = ProcedureQueue()
        let procedure = HookProcedure()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.executeCount == 1)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.error == nil)
    }

    // §13.2
    @Test func asyncWorkFinishesWhenItCallsFinishNotWhenExecuteReturns() {
        let queue = ProcedureQueue()
        let release = DispatchSemaphore(value: 0)
        let executed = DispatchSemaphore(value: 0)
        let procedure = HookProcedure { procedure in
            DispatchQueue.global().async {
                release.wait()
                procedure.finish()
            }
        }
        procedure.addDidExecuteBlockObserver { _ in executed.signal() }
        queue.add(procedure: procedure)
        waitFor(executed, "execute to return")
        #expect(!procedure.isFinished)
        release.signal()
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
    }

    // §13.3
    @Test func didExecuteObserverRunsAfterExecuteReturns() {
        let queue = ProcedureQueue()
        let trail = Trail()
        let procedure = HookProcedure(trail: trail) { procedure in
            procedure.finish()
            trail.append("execute returning")
        }
        procedure.addDidExecuteBlockObserver { _ in trail.append("didExecute") }
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let entries = trail.entries
        let returned = entries.firstIndex(of: "execute returning")
        let observed = entries.firstIndex(of: "didExecute")
        #expect(returned != nil && observed != nil && returned! < observed!, "\(entries)")
    }

    // §13.4
    @Test func isFinishedIsFalseInWillFinishAndTrueInDidFinish() {
        let queue = ProcedureQueue()
        let seen = PKMutex<(willFinish: Bool?, didFinish: Bool?)>((nil, nil))
        let procedure = TestProcedure()
        procedure.addWillFinishBlockObserver { procedure, _, _ in
            let finished = procedure.isFinished
            seen.withLock { $0.willFinish = finished }
        }
        procedure.addDidFinishBlockObserver { procedure, _ in
            let finished = procedure.isFinished
            seen.withLock { $0.didFinish = finished }
        }
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let values = seen.withLock { $0 }
        #expect(values.willFinish == false)
        #expect(values.didFinish == true)
    }

    // §13.5
    @Test func callbacksOfOneProcedureNeverOverlapUnderStress() {
        let queue = ProcedureQueue()
        let recorder = EventRecorder(spin: .microseconds(20))
        let procedures = (0..<300).map { index in
            HookProcedure(name: "P\(index)") { procedure in
                DispatchQueue.global().async { procedure.finish() }
            }
        }
        for procedure in procedures {
            procedure.log.enabled = false
            procedure.addObserver(recorder)
            procedure.addObserver(recorder)
        }
        queue.add(procedures: procedures)
        DispatchQueue.concurrentPerform(iterations: procedures.count) { index in
            if index.isMultiple(of: 3) { procedures[index].cancel() }
        }
        #expect(ProcedureWaiter.wait(for: procedures, timeout: hangTimeout))
        PKExpectProcedureNoConcurrentEvents(recorder)
        #expect(recorder.count(of: .didFinish) == procedures.count * 2)
    }

    // §13.6
    @Test func procedureDidCancelOverrideRunsBeforeDidCancelObservers() {
        let trail = Trail()
        let procedure = HookProcedure(trail: trail)
        procedure.addDidCancelBlockObserver { _, _ in trail.append("didCancel observer") }
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(trail.entries.prefix(2) == ["procedureDidCancel(isFinished: false)", "didCancel observer"])
    }

    // §13.7
    @Test func didCancelObserverThatStopsTheTimerFinishesPromptlyCancelled() {
        let queue = ProcedureQueue()
        // The "timer": a wait that ends after an hour, or as soon as the DidCancel observer stops it.
        let stopTimer = DispatchSemaphore(value: 0)
        let executed = DispatchSemaphore(value: 0)
        let procedure = HookProcedure { procedure in
            DispatchQueue.global().async {
                if stopTimer.wait(timeout: .now() + 3600) == .timedOut { procedure.finish() }
            }
        }
        procedure.addDidExecuteBlockObserver { _ in executed.signal() }
        procedure.addDidCancelBlockObserver { procedure, _ in
            stopTimer.signal()
            procedure.finish()
        }
        queue.add(procedure: procedure)
        waitFor(executed, "execute")
        procedure.cancel()
        waitForAll(procedure)
        PKExpectProcedureCancelled(procedure)
    }

    // §13.20
    @Test func cancelBeforeEnqueueIsImmediateAndFinishesWithoutExecutingOnceEnqueued() {
        let procedure = HookProcedure()
        let recorder = EventRecorder()
        procedure.addObserver(recorder)
        procedure.cancel()
        #expect(procedure.isCancelled)
        #expect(recorder.kinds(for: procedure).contains(.didCancel))
        #expect(!procedure.isFinished)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        #expect(recorder.kinds(for: procedure) == [.didAttach, .didCancel, .willFinish, .didFinish])
    }

    // §13.21
    @Test func onlyTheFirstFinishBeforeStartCounts() {
        let procedure = HookProcedure()
        procedure.log.enabled = false
        let error = TestError()
        procedure.cancel()
        procedure.finish(with: error)
        procedure.finish()
        #expect(!procedure.isFinished)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
        #expect(procedure.errors.count == 1)
    }

    // §13.22
    @Test func didCancelObserverFinishingWithAnErrorBeforeStartEndsCancelledWithThatError() {
        let error = TestError()
        let procedure = HookProcedure()
        procedure.addDidCancelBlockObserver { procedure, _ in procedure.finish(with: error) }
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    // §13.23
    @Test func cancelThenFinishInExecuteRunsDidCancelBeforeFinishing() {
        let error = TestError()
        let trail = Trail()
        let procedure = HookProcedure(trail: trail) { procedure in
            procedure.cancel()
            procedure.finish(with: error)
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(trail.entries.contains("procedureDidCancel(isFinished: false)"), "\(trail.entries)")
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    // §13.24
    @Test func finishThenCancelInExecuteEndsFinishedAndNeverCallsDidCancel() {
        let trail = Trail()
        let procedure = HookProcedure(trail: trail) { procedure in
            procedure.finish()
            procedure.cancel()
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(!trail.entries.contains { $0.hasPrefix("procedureDidCancel") })
    }

    enum WillFinishAction: String, CaseIterable, Sendable { case cancel, finish }

    // §13.25
    @Test(arguments: WillFinishAction.allCases)
    func cancelOrFinishFromWillFinishObserverIsIgnored(_ action: WillFinishAction) {
        let procedure = TestProcedure()
        procedure.log.enabled = false
        procedure.addWillFinishBlockObserver { procedure, _, _ in
            switch action {
            case .cancel: procedure.cancel(with: TestError())
            case .finish: procedure.finish(with: TestError())
            }
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.error == nil)
    }

    // §13.26
    @Test func finishFromWillExecuteObserverSkipsExecuteAndEndsFinishedWithTheError() {
        let error = TestError()
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver { procedure, _ in procedure.finish(with: error) }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureFinished(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    // §13.27
    @Test func cancelFromWillExecuteObserverSkipsExecuteAndEndsCancelledWithTheError() {
        let error = TestError()
        let procedure = TestProcedure()
        procedure.addWillExecuteBlockObserver { procedure, _ in procedure.cancel(with: error) }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: error)
    }

    // §13.28
    @Test func concurrentFinishesFromExecuteRunDidFinishObserversOnce() {
        let recorder = EventRecorder()
        let procedure = HookProcedure { procedure in
            DispatchQueue.concurrentPerform(iterations: 3) { _ in procedure.finish() }
        }
        procedure.log.enabled = false
        procedure.addObserver(recorder)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(recorder.count(of: .didFinish) == 1)
        PKExpectProcedureFinished(procedure)
    }

    // §13.29
    @Test func disabledAutomaticFinishingStaysUnfinishedAfterCancelUntilItFinishes() {
        let executed = DispatchSemaphore(value: 0)
        let cancelled = DispatchSemaphore(value: 0)
        let procedure = HookProcedure(disableAutomaticFinishing: true) { _ in executed.signal() }
        procedure.addDidCancelBlockObserver { _, _ in cancelled.signal() }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitFor(executed, "execute")
        procedure.cancel()
        waitFor(cancelled, "the DidCancel observer")
        #expect(procedure.isCancelled)
        #expect(!procedure.isFinished)
        #expect(queue.operationCount == 1)
        procedure.finish()
        waitForAll(procedure)
        PKExpectProcedureCancelled(procedure)
    }

    // §13.29 (the other half of the contract): execute runs even when cancelled before it starts.
    @Test func disabledAutomaticFinishingExecutesEvenWhenCancelledBeforeStart() {
        let procedure = HookProcedure(disableAutomaticFinishing: true) { $0.finish() }
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.executeCount == 1)
        PKExpectProcedureCancelled(procedure)
    }
}
