import Dispatch

extension ProcedureQueue {

    /// Adds `procedure` and waits for it to finish.
    ///
    /// Throws when it was cancelled or failed (see the rules on ``Procedure``'s async APIs): `CancellationError`
    /// for a cancellation without errors, the error when there is exactly one, otherwise a ``ProcedureKitError``
    /// with context `multipleErrors`. Cancelling the awaiting Task cancels the procedure.
    public func run<P: Procedure>(_ procedure: P) async throws {
        try await withTaskCancellationHandler {
            add(procedure: procedure)
            await procedure.waitUntilFinished()
            try procedure.throwIfUnsuccessful()
        } onCancel: {
            procedure.cancelFromTaskCancellationHandler()
        }
    }

    /// Adds `procedure`, waits for it to finish and returns its output.
    ///
    /// Throws as the plain `run(_:)` does, the output's error when it is a failure, and
    /// ``ProcedureKitError/Context/requirementNotSatisfied`` when the output is still pending.
    @discardableResult
    public func run<P: OutputProcedure>(_ procedure: P) async throws -> P.Output {
        try await run(procedure as Procedure)
        switch procedure.output {
        case .ready(.success(let value)): return value
        case .ready(.failure(let error)): throw error
        case .pending: throw ProcedureKitError.requirementNotSatisfied()
        }
    }
}

extension Procedure {
    /// Cancels with ``ProcedureKitError/Context/taskCancelled`` from a task's cancellation handler.
    ///
    /// Swift runs that handler under the task's status lock, and a cancel may run user code at once (the cancel
    /// hooks, DidCancel observers, even the whole finish, which resumes continuations). So only the accepting step
    /// runs here: `isCancelled` is `true` when this returns. The reaction runs on another thread.
    /// See `Locking/LOCKING.md`.
    final func cancelFromTaskCancellationHandler() {
        Self.cancelFromTaskCancellationHandler([self])
    }

    /// Cancels `procedures` from a task's cancellation handler: every one accepts its cancel here, before any of
    /// them reacts (as ``cancelTogether(_:withErrors:becomeReady:)`` does), and each reacts on a thread of its own.
    ///
    /// A reaction is user code that may wait: a DidCancel observer synchronized with another procedure waits for
    /// that procedure's event context, which an accepted cancel keeps busy until its own reaction runs. Reactions
    /// queued one behind another (one process-wide serial queue, as before) deadlocked there, and one slow cancel
    /// hook held up every task-driven cancel in the process. So no reaction waits for another: each gets a serial
    /// queue of its own, which targets an overcommitting root queue and so gets a thread even while the global
    /// pool is busy or blocked.
    static func cancelFromTaskCancellationHandler<P: Procedure>(_ procedures: some Sequence<P>) {
        let errors: [any Error] = [ProcedureKitError.taskCancelled()]
        var accepted: [(Procedure, AcceptedCancel)] = []
        for procedure in procedures {
            if let cancel = procedure.acceptCancel(withErrors: errors) { accepted.append((procedure, cancel)) }
        }
        for (procedure, cancel) in accepted {
            DispatchQueue(label: "PKCore.Procedure.cancellationReaction").async {
                procedure.completeCancel(cancel, becomeReady: true)
            }
        }
    }
}
