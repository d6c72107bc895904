import Dispatch
import Foundation

/// Something an observer's callbacks can be synchronized with (`synchronizedWith:`): ProcedureKit's
/// `QueueProvider`.
///
/// While a synchronized callback runs, the observed procedure's events are held back, so the callback is
/// serialized with both the procedure and the synchronizer. `DispatchQueue` and ``Procedure`` conform.
public protocol ObserverSynchronizer: Sendable {
    /// Runs `callback` synchronously in this synchronizer's serial context and returns when it is done.
    ///
    /// Called on the thread delivering the observed procedure's event. When that thread is already inside this
    /// synchronizer's context, `callback` must simply run (waiting for itself would deadlock).
    func synchronizeObserverCallback(_ callback: () -> Void)
}

/// ProcedureKit's name for what an observer's callbacks are synchronized with.
@available(*, deprecated, renamed: "ObserverSynchronizer")
public typealias QueueProvider = ObserverSynchronizer

extension DispatchQueue: ObserverSynchronizer {
    /// Runs `callback` with `sync`, as a barrier on concurrent queues, so it is serialized with the queue's work;
    /// runs it directly when the calling thread is already running this queue's work (or, for the main queue,
    /// is the main thread), because `sync` onto the current queue would deadlock.
    ///
    /// Do not synchronize with a queue that is itself blocked waiting for the observed procedure; that deadlocks,
    /// as any nested `sync` does.
    public func synchronizeObserverCallback(_ callback: () -> Void) {
        if isCurrentQueue {
            callback()
        } else {
            sync(flags: .barrier, execute: callback)
        }
    }
}
