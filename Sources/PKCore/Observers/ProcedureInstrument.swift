/// A package-level hook that records a procedure's lifecycle without being one of its observers: the queue-level
/// trace recorder (PKObservers' `TraceRecorder`) attaches one to each procedure added to a queue it observes.
///
/// An observer costs an `AnyProcedureObserver`, a place in the observer list and an event per callback; an
/// instrument is one field of the observer list, read with the observers where the procedure reads them anyway, and
/// called directly at the three points a trace needs: just before `execute()` (on the thread that runs it), as its
/// DidCancel event runs, and after it finished (next to the DidFinish observers). A procedure without one pays
/// nothing: the field is `nil`.
///
/// Called outside every lock, on the thread delivering the procedure's events. An instrument must not block, and
/// must not call back into the procedure beyond reading it.
// PERF(W13): the queue-level recorder's per-procedure cost without an observer (see ENGINE.md).
package protocol ProcedureInstrument: AnyObject, Sendable {
    /// `execute()` is about to run, on this thread (after the WillExecute observers).
    func procedureWillExecute(_ procedure: Procedure)
    /// The procedure's DidCancel event is running (before its DidCancel observers).
    func procedureDidCancel(_ procedure: Procedure, withErrors errors: [any Error])
    /// The procedure finished (before its DidFinish observers).
    func procedureDidFinish(_ procedure: Procedure, withErrors errors: [any Error])
}

extension Procedure {
    /// Attaches `instrument` to a procedure being enqueued that has neither dependencies nor conditions and no
    /// instrument yet; returns whether it did. At most one instrument per procedure.
    package final func attachInstrumentIfIndependent(_ instrument: any ProcedureInstrument) -> Bool {
        storage.withLock { state in
            guard state.observers.instrument == nil, state.dependencies.isEmpty, state.conditions.isEmpty,
                state.machine.state != .finished
            else { return false }
            state.observers.instrument = instrument
            return true
        }
    }
}
