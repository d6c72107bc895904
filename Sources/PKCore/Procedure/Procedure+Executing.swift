import Foundation

// Executing: the start event, the WillExecute phase, `execute()` (on the queue's underlying queue when it has one).

extension Procedure {

    final func processStart() {
        let (action, observers) = storage.withLock { ($0.machine.start(), $0.observers) }
        switch action {
        case .runWillExecute:
            if observers.wants(.willExecute) {
                runWillPhase(.execute, continuation: .willExecuteDone) { token in
                    observers.send(.willExecute(token), to: self)
                }
            } else {
                processWillExecuteDone()
            }
        case .finish:
            // Cancelled (or finished) before starting. A cancel that landed just before this event may still
            // have its DidCancel work queued: finishing is queued behind it, so DidCancel observers come first.
            submit(.beginFinishing)
        case .ignore(let state):
            log.warning("start() called on \(procedureName) in state \(state); ignored")
        case .notEnqueued:
            log.warning("start() called on \(procedureName) while it is being enqueued; ignored")
        }
    }

    final func processWillExecuteDone() {
        let (action, queueRef, observers) = storage.withLock {
            ($0.machine.willExecuteObserversDidFinish(), $0.queueRef, $0.observers)
        }
        switch action {
        case .execute: runExecuteOnQueue(queueRef, observers: observers)
        case .finish:
            // Cancelled during the WillExecute phase: its DidCancel work is queued behind this continuation, so
            // the automatic finish is queued too, after it.
            submit(.beginFinishing)
        case .none: break
        }
    }

    /// Runs `execute()` here, or, when the queue has an `underlyingQueue` and this thread is not on it (another
    /// thread was draining this procedure's events when the queue started it), hops there first.
    final func runExecuteOnQueue(_ queueRef: Unmanaged<ProcedureQueue>?, observers: ObserverList) {
        guard let target = queueRef?._withUnsafeGuaranteedRef({ $0.underlyingQueueToHopTo() }) else {
            runExecute(observers: observers)
            return
        }
        storage.withLock { $0.loop.block() }
        // The context is blocked, so the thread that was draining stops at its next step; take over then.
        target.async { [self] in resumeDraining(with: .executeNow, first: false) }
    }

    /// Runs `execute()`, then the DidExecute observers. `observers` are the procedure's observers as this event
    /// began: no other event runs until it ends, so an observer added meanwhile is attached afterwards.
    final func runExecute(observers: ObserverList) {
        observers.instrument?.procedureWillExecute(self)
        execute()
        if observers.wants(.didExecute) { observers.send(.didExecute, to: self) }
    }
}
