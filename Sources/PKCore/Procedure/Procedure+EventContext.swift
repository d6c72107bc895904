import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
                next = nextQueuedEvent()
            }
        }
    }

    /// The next queued event for the thread draining, or `nil` when it must stop: nothing is queued, the context
    /// is blocked, or the next event starts execution and goes to a thread of the procedure's queue instead.
    ///
    /// A start (or the end of a WillExecute phase held past its delivery) that was queued behind another event
    /// must not run on the thread draining: that thread came in for something else (attaching an observer,
    /// cancelling, finishing a dependency), and may be an event loop, the main thread, or a caller holding a lock
    /// `execute()` needs. A cancelled procedure will not execute, so its start runs here.
    final func nextQueuedEvent() -> EventContextStep? {
        var handOff: Unmanaged<ProcedureQueue>?? = nil
        let next = storage.withLock { state -> EventContextStep? in
            guard let event = state.loop.next() else { return nil }
            guard event.leadsToExecute, !state.machine.isCancelled else { return event }
            state.loop.stopForHandOff()
            handOff = .some(state.queueRef)
            return event
        }
        guard let queueRef = handOff, let next else { return next }
        handToQueueThread(next, queueRef: queueRef)
        return nil
    }

    /// Submits an event that leads to `execute()` from a thread that did not come from the procedure's queue:
    /// it runs on a thread of the queue (see ``nextQueuedEvent()``), or here when the procedure was cancelled.
    final func submitFromOutsideQueue(_ event: EventContextStep) {
        var handOff: Unmanaged<ProcedureQueue>?? = nil
        let drainNow = storage.withLock { state -> Bool in
            // Queued behind a drainer: it hands the event over as it reaches it.
            guard state.loop.accept(event) else { return false }
            if state.machine.isCancelled { return true }
            state.loop.stopForHandOff()
            handOff = .some(state.queueRef)
            return false
        }
        if drainNow {
            drain(startingWith: event)
        } else if let queueRef = handOff {
            handToQueueThread(event, queueRef: queueRef)
        }
    }

    /// Runs `event` first, then whatever was queued, on the queue's `underlyingQueue` or, without one, a global
    /// queue at the queue's quality of service. The context was stopped for the hand-off, so nothing else
    /// drains meanwhile.
    private func handToQueueThread(_ event: EventContextStep, queueRef: Unmanaged<ProcedureQueue>?) {
        let target = queueRef?._withUnsafeGuaranteedRef { $0.executionQueue } ?? DispatchQueue.global()
        target.async { [self] in resumeDraining(with: event, first: true) }
    }

    /// Takes the draining role for a context that was blocked for a hop to this thread, and drains, running `event`
    /// first (`first`) or after whatever was queued meanwhile.
    final func resumeDraining(with event: EventContextStep, first: Bool) {
        // PERF(W10, `underlyingQueue global` row): a spin, not a wait to be woken: a thread still draining is
        // between two steps of this procedure's events and lets go within a step (it finds the context blocked),
        // so a wake-up protocol on every drain would cost more than the rare spin.
        while true {
            if let next = storage.withLock({ $0.loop.resumeExclusively(with: event, first: first) }) {
                drain(startingWith: next)
                return
            }
            sched_yield()
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
        case .submitContinuation:
            // Released after its phase, on whatever thread let go of it: the WillExecute phase ends on a thread
            // of the queue, not on that one.
            if continuation.leadsToExecute { submitFromOutsideQueue(continuation) } else { submit(continuation) }
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
