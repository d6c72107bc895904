import Foundation

/// How the type-erasing wrappers (``AnyProcedure``, ``AnyInputProcedure``, ``AnyOutputProcedure``) run the
/// procedure they wrap.
///
/// When the wrapper executes, the wrapped procedure is added to a private ``ProcedureQueue`` (using the
/// wrapper's queue's `underlyingQueue`), not to the wrapper's own queue: a wrapper occupies a slot of its queue
/// until it finishes, so on a serial queue the wrapped procedure could otherwise never start. When the wrapped
/// procedure finishes, the wrapper finishes with its errors (and is cancelled first if it was cancelled).
/// Cancelling the wrapper cancels the wrapped procedure with the same errors.
struct WrappedProcedure: Sendable {

    /// The wrapped procedure.
    let base: Procedure

    /// Starts `base` on behalf of `wrapper` (from the wrapper's `execute()`).
    func execute(for wrapper: Procedure) {
        // The wrapper is held weakly: if `base` never finishes, nothing here keeps the wrapper alive.
        base.addObserver(
            BlockObserver<Procedure>(didFinish: { [weak wrapper] base, errors in
                guard let wrapper else { return }
                if base.isCancelled {
                    wrapper.cancel(withErrors: errors)
                    wrapper.finish()
                } else {
                    wrapper.finish(withErrors: errors)
                }
            }))
        let underlyingQueue = wrapper.storage.withLock { $0.queue }?.underlyingQueue
        let queue = ProcedureQueue(name: "\(wrapper.procedureName).wrapped", underlyingQueue: underlyingQueue)
        queue.add(procedure: base)
    }

    /// Forwards a cancellation of the wrapper.
    func wrapperWasCancelled(withErrors errors: [any Error]) {
        base.cancel(withErrors: errors)
    }
}
