import Foundation

// Waiting: for the procedure to finish (async), and for its event context (`synchronize`).

extension Procedure {

    /// Suspends until the procedure has finished and its DidFinish observers have run.
    ///
    /// Cancelling the waiting Task does not cancel the procedure; use `ProcedureQueue.run(_:)` for that.
    public final func waitUntilFinished() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if !storage.withLock({ $0.finishWaiters.add(continuation) }) { continuation.resume() }
        }
    }
}

extension Procedure: ObserverSynchronizer {
    /// Runs `body` serialized with this procedure's events and waits for it.
    ///
    /// `body` runs on the calling thread while this procedure's event context is held: no event of this
    /// procedure runs meanwhile. Used to synchronize another procedure's observer with this one. Called from
    /// inside this procedure's own events, `body` simply runs. It waits while the procedure's events are held by
    /// an outstanding pending-event token.
    public func synchronizeObserverCallback(_ body: () -> Void) {
        synchronize(body)
    }

    /// Runs `body` serialized with this procedure's events; see ``synchronizeObserverCallback(_:)``.
    final func synchronize(_ body: () -> Void) {
        if DrainingProcedures.isDraining(self) {
            body()
            return
        }
        let acquired = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        // Queued behind the current events, this event holds the context while `body` runs on this thread.
        let hold = EventContextStep.run {
            acquired.signal()
            released.wait()
        }
        if storage.withLock({ $0.loop.accept(hold) }) {
            // Nobody was draining: this thread now holds the context itself.
            DrainingProcedures.withDraining(self) { body() }
            if let next = nextQueuedEvent() { drain(startingWith: next) }
            return
        }
        acquired.wait()
        DrainingProcedures.withDraining(self) { body() }
        released.signal()
    }
}
