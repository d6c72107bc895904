/// The manual reference counting that keeps a ``ProcedureQueue`` alive while it has work, in one place.
///
/// **The queue's reference to itself.** Invariant: the queue holds exactly one reference to itself while it has
/// outstanding operations (added and not completely finished, DidFinish notifications included:
/// `ProcedureQueueState.outstanding > 0`). It is taken when `outstanding` goes 0 → 1, under the queue's lock, by
/// the add that made it so (``takeSelfReference(_:)``), and given back when `outstanding` returns to 0, by the
/// caller whose `procedureDidFinish` / `operationDidFinish` returned `true`, after that call returned and as the
/// caller's very last use of the queue (``giveBackSelfReference(_:)``): the release may deallocate the queue. So a
/// queue the user drops runs the work it has, and procedures refer to their queue without retaining it
/// (`ProcedureStorage.queueRef`, unretained), as do the worker loops' entries (`WorkerLoop.Entry`).
///
/// **A worker loop's reference.** Invariant: each dispatched worker loop (pending, running, continued in a new
/// block, or waiting in the ``LoopBudget``'s line) holds one reference to its queue, taken when it is dispatched
/// (``retainForLoop(_:)``) and given back when the loop ends on its thread (``releaseLoop(_:)``); a loop that
/// continues in a new block takes a new one before giving back its own.
///
/// PERF(W1, W3): a procedure retaining its queue (and a closure capturing it per dispatch) would put one shared
/// reference count, written by every thread, on every procedure's path.
enum QueueKeepAlive {

    /// Takes the queue's reference to itself: when its first outstanding operation is added, under its lock.
    @inline(__always)
    static func takeSelfReference(_ queue: ProcedureQueue) {
        _ = Unmanaged.passRetained(queue)
    }

    /// Gives back the queue's reference to itself, once nothing is outstanding, after the call that made it idle
    /// returned; the caller must not use the queue afterwards.
    @inline(__always)
    static func giveBackSelfReference(_ queue: Unmanaged<ProcedureQueue>) {
        queue.release()
    }

    /// Takes a reference for a worker loop about to be dispatched.
    @inline(__always)
    static func retainForLoop(_ queue: ProcedureQueue) -> Unmanaged<ProcedureQueue> {
        Unmanaged.passRetained(queue)
    }

    /// Gives back a worker loop's reference as the loop ends on its thread; the caller must not use the queue
    /// afterwards.
    @inline(__always)
    static func releaseLoop(_ reference: Unmanaged<ProcedureQueue>) {
        reference.release()
    }
}
