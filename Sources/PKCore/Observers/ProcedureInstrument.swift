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
///
/// Unlike the observers, a procedure keeps its instrument after it finished, for the rest of its life (readable as
/// ``Procedure/instrument``): that is how a recorder recognises a procedure it traced. An instrument should let go
/// of what it holds once the procedure finished.
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
    /// Attaches the instrument `make` returns to a procedure being enqueued that has neither dependencies nor
    /// conditions and no instrument yet, and returns `true`; returns `false` (without calling `make`) otherwise. At
    /// most one instrument per procedure.
    ///
    /// `make` runs under the procedure's lock, so that only an instrument that is attached is made (a recorder
    /// numbers what it makes): it must not call into the procedure or take a lock that is ever held while calling
    /// into one.
    // PERF(W13): not generic: unspecialised across modules, a generic version cost a third more per procedure.
    package final func attachInstrumentIfIndependent(_ make: () -> any ProcedureInstrument) -> Bool {
        storage.withLock { state in
            guard state.observers.instrument == nil, state.dependencies.isEmpty, state.conditions.isEmpty,
                state.machine.state != .finished
            else { return false }
            state.observers.instrument = make()
            return true
        }
    }

    /// The procedure's instrument, if it has one: how a recorder recognises a procedure it instruments.
    package final var instrument: (any ProcedureInstrument)? {
        storage.withLock { $0.observers.instrument }
    }
}
