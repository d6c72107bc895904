import Foundation

// Cancelling: accepting a cancel on the cancelling thread, then its DidCancel event in the event context.

extension Procedure {

    /// Cancels the procedure with `error`, if not `nil`. See ``cancel(withErrors:)``.
    public final func cancel(with error: (any Error)?) {
        cancel(withErrors: error.map { [$0] } ?? [])
    }

    /// Cancels the procedure, appending `errors` to ``errors``.
    ///
    /// `isCancelled` is `true` when this returns. ``procedureDidCancel(withErrors:)`` and then the DidCancel
    /// observers run in the procedure's event context, after any event in progress (so after `execute()` if it
    /// is running). Ignored once the procedure is cancelled, finishing or finished.
    public final func cancel(withErrors errors: [any Error]) {
        if cancel(withErrors: errors, becomeReady: true) == false, !errors.isEmpty {
            log.verbose("cancel(withErrors: \(errors)) ignored: already cancelled or finishing")
        }
    }

    /// Cancels; when `becomeReady` is false a procedure waiting in its queue stays waiting until
    /// ``becomeReadyIfWaiting()`` (used to cancel every member of a dependency cycle before any of them runs).
    /// Returns whether the cancel was accepted.
    @discardableResult
    final func cancel(withErrors errors: [any Error], becomeReady: Bool) -> Bool {
        guard let accepted = acceptCancel(withErrors: errors) else { return false }
        completeCancel(accepted, becomeReady: becomeReady)
        return true
    }

    /// A cancel accepted by ``acceptCancel(withErrors:)`` whose work (the synchronous hook, becoming ready, the
    /// DidCancel event) is still to be done by ``completeCancel(_:becomeReady:)``.
    struct AcceptedCancel {
        let errors: [any Error]
        let wasPending: Bool
        /// This thread holds the procedure's event context and must drain it.
        let drainNow: Bool
    }

    /// The first step of a cancel: `isCancelled` is `true` when this returns, but nothing has reacted yet. Used to
    /// cancel several procedures at once (a group's children) so that none of them reacts, finishing and releasing
    /// a sibling that depends on it, before all are cancelled. `nil` when the cancel is ignored.
    final func acceptCancel(withErrors errors: [any Error]) -> AcceptedCancel? {
        let (action, drainNow) = storage.withLock { state -> (ProcedureStateMachine.CancelAction, Bool) in
            let action = state.machine.cancel(errors: errors)
            guard case .didCancel = action else { return (action, false) }
            return (action, state.submit(.didCancel(errors)))
        }
        guard case .didCancel(let wasPending) = action else { return nil }
        return AcceptedCancel(errors: errors, wasPending: wasPending, drainNow: drainNow)
    }

    /// The second step of a cancel, on the thread that accepted it (or one it handed the cancel to, as
    /// ``cancelFromTaskCancellationHandler()`` does).
    final func completeCancel(_ accepted: AcceptedCancel, becomeReady: Bool) {
        if accepted.drainNow {
            // This thread now holds the event context (its DidCancel work runs below), so the synchronous hook
            // counts as running inside it: a child finishing inline may `synchronize` with this procedure.
            DrainingProcedures.withDraining(self) { cancelAcceptedOnCancellingThread(withErrors: accepted.errors) }
        } else {
            cancelAcceptedOnCancellingThread(withErrors: accepted.errors)
        }
        if accepted.wasPending && becomeReady { becomeReadyIfWaiting() }
        if accepted.drainNow { drain(startingWith: .didCancel(accepted.errors)) }
    }

    /// Cancels `operations` together: every one is cancelled (``acceptCancel(withErrors:)``) before any of them
    /// reacts. A procedure finishing as it is cancelled (a delay, say) must not release a dependent that is about to
    /// be cancelled too, which would then run before its own cancel arrives. Used for a group's children and for
    /// the members of a dependency cycle (with `becomeReady` false: they become ready once every cycle is cancelled).
    static func cancelTogether(_ operations: [Operation], withErrors errors: [any Error], becomeReady: Bool) {
        var accepted: [(Procedure, AcceptedCancel)] = []
        for operation in operations {
            if let procedure = operation as? Procedure {
                if let cancel = procedure.acceptCancel(withErrors: errors) { accepted.append((procedure, cancel)) }
            } else {
                operation.cancel()
            }
        }
        // This thread holds the event context of each procedure whose cancel it must drain: one synchronizing with
        // another meanwhile runs inline rather than waiting for this thread.
        let held = accepted.filter { $0.1.drainNow }.map(\.0)
        DrainingProcedures.withDraining(all: held) {
            for (procedure, cancel) in accepted { procedure.completeCancel(cancel, becomeReady: becomeReady) }
        }
    }

    final func processDidCancel(_ errors: [any Error]) {
        procedureDidCancel(withErrors: errors)
        let observers = storage.withLock { $0.observers }
        observers.instrument?.procedureDidCancel(self, withErrors: errors)
        if observers.wants(.didCancel) { observers.send(.didCancel(errors), to: self) }
    }
}
