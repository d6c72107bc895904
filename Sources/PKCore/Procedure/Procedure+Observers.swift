import Foundation

extension Procedure {

    /// Adds an observer. It is held until the procedure finishes.
    ///
    /// The observer is attached in the procedure's event context, after any event already under way; events
    /// that begin after that reach it. An observer attached after the procedure finished gets `didAttach` and
    /// then `did(finish:withErrors:)` as soon as the procedure's remaining events have run, and is not kept.
    public final func addObserver<O: ProcedureObserver>(_ observer: O) {
        guard self is O.Procedure else {
            log.warning("observer \(O.self) expects \(O.Procedure.self), not \(type(of: self)); not added")
            return
        }
        let observer = AnyProcedureObserver(observer)
        if !appendWhileIdle(observer) { submit(.attach(observer)) }
    }

    /// Adds a block observer (see `ProcedureProtocol`'s `add…BlockObserver` methods), run inside `synchronizer`
    /// when one is given. A block has no `didAttach`, so while no event is under way or queued (the usual case:
    /// configuring a procedure before enqueueing it) it is simply appended; otherwise it is attached in the event
    /// context like any observer.
    @usableFromInline
    final func addObserver(block: ObserverBlock, synchronizedWith synchronizer: (any ObserverSynchronizer)?) {
        let observer = AnyProcedureObserver(block, synchronizedWith: synchronizer)
        if !appendWhileIdle(observer) { submit(.attach(observer)) }
    }

    /// Appends `observer` if it has nothing to do when attached (a block, or an observer that does not name
    /// did-attach), no event is under way or queued, and the procedure has not finished: what attaching it in the
    /// event context would do. Returns whether it did.
    // PERF(W12): a TimeoutObserver is appended here, with no event-context step.
    private final func appendWhileIdle(_ observer: AnyProcedureObserver) -> Bool {
        guard !observer.kinds.contains(.didAttach) else { return false }
        return storage.withLock { state -> Bool in
            guard state.loop.isIdle, state.machine.state != .finished else { return false }
            state.observers.append(observer)
            return true
        }
    }
}
