import Dispatch

/// Something an observer's callbacks can be synchronized with (`synchronizedWith:`).
///
/// While a synchronized callback runs, the observed procedure's events are held back, so the callback is
/// serialized with both the procedure and the synchronizer. `DispatchQueue` and ``Procedure`` conform.
public protocol ObserverSynchronizer: Sendable {
    /// Runs `body` synchronously in this synchronizer's serial context and returns when it is done.
    func synchronize(_ body: () -> Void)
}

extension DispatchQueue: ObserverSynchronizer {
    /// Runs `body` with `sync`, as a barrier on concurrent queues, so it is serialized with the queue's work.
    ///
    /// Do not synchronize with the queue the observed procedure is itself blocking on; that deadlocks, as any
    /// nested `sync` does.
    public func synchronize(_ body: () -> Void) {
        sync(flags: .barrier, execute: body)
    }
}
