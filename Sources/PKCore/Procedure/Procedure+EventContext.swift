import Foundation

// The procedure's serial event context: submitting and draining events, and the "will" phases' tokens.

extension Procedure {

    // Accept-then-drain, the one way events enter the context: `ProcedureStorage.submit(_:)` accepts the event
    // under the lock (often in the same critical section as the decision that produced it: finish, cancel, start)
    // and says whether the calling thread became the drainer, which then runs it with `drain(startingWith:)` after
    // the lock. (PERF(W1): a Bool, not the event, comes back out of the lock: returning the optional event cost
    // copies on every start and finish.)

    /// Runs `event` now (becoming the drainer) or queues it behind the event in progress.
    final func submit(_ event: EventContextStep) {
        if storage.withLock({ $0.submit(event) }) { drain(startingWith: event) }
    }

    /// Runs `event`, then every queued event, until none are left or the context is blocked.
    final func drain(startingWith event: EventContextStep) {
        DrainingProcedures.withDraining(self) {
            var next: EventContextStep? = event
            while let event = next {
                process(event)
                next = storage.withLock { $0.loop.next() }
            }
        }
    }

    /// Runs a "will" phase: each observer gets the same pending-event token. If every reference is released
    /// during the phase, `continuation` runs at once, inline; otherwise it is queued when the last reference
    /// goes, behind whatever arrived meanwhile. Other events are not held up by an outstanding token.
    final func runWillPhase(
        _ kind: PendingEvent.Kind, continuation: EventContextStep, deliver: (PendingEvent) -> Void
    ) {
        do {
            let token = PendingEvent(kind: kind, procedure: self, continuation: continuation)
            storage.withLock { $0.willPhase.beginDelivery(token: ObjectIdentifier(token)) }
            deliver(token)
        }
        switch storage.withLock({ $0.willPhase.endDelivery() }) {
        case .runContinuation: process(continuation)
        case .continuationAwaitsToken: break
        }
    }

    /// Called as a pending-event token's last reference goes: during its phase, the phase continues inline;
    /// afterwards the continuation is submitted from here.
    final func pendingEventReleased(_ token: ObjectIdentifier, continuation: EventContextStep) {
        switch storage.withLock({ $0.willPhase.tokenReleased(token) }) {
        case .phaseContinuesInline: break
        case .submitContinuation: submit(continuation)
        }
    }

    final func process(_ event: EventContextStep) {
        switch event {
        case .attach(let observer): processAttach(observer)
        case .start: processStart()
        case .willExecuteDone: processWillExecuteDone()
        case .didCancel(let errors): processDidCancel(errors)
        case .beginFinishing: processBeginFinishing()
        case .willFinishDone: processWillFinishDone()
        case .produce(let operation, let before, let target): processProduce(operation, before: before, to: target)
        case .addProduced(let operation, let before, let target):
            processAddProduced(operation, before: before, to: target)
        case .executeNow: runExecute(observers: storage.withLock { $0.observers })
        case .run(let body): body()
        }
    }

    final func processAttach(_ observer: AnyProcedureObserver) {
        let finishedErrors = storage.withLock { state -> [any Error]? in
            if state.machine.state == .finished { return state.machine.errors }
            state.observers.append(observer)
            return nil
        }
        observer.send(.didAttach, to: self)
        if let finishedErrors {
            // Attached after finishing: the observer is told at once and not kept.
            observer.send(.didFinish(finishedErrors), to: self)
        }
    }
}

extension ProcedureStorage {
    /// Accepts `event` into the procedure's event context. Returns `true` when the caller became the drainer and
    /// must run it, after the lock, with `Procedure.drain(startingWith:)`; `false` when it was queued behind the
    /// drainer.
    mutating func submit(_ event: EventContextStep) -> Bool {
        loop.accept(event)
    }
}
