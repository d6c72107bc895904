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
        guard let accepted = acceptCancel(withErrors: [ProcedureKitError.taskCancelled()]) else { return }
        Self.cancellationReactions.async { self.completeCancel(accepted, becomeReady: true) }
    }

    /// Where cancels accepted in a task's cancellation handler are carried out, one at a time. A serial queue of
    /// our own targets an overcommitting root queue, so a reaction is not held up while every thread of the global
    /// pool is busy (the global queue itself would wait for them, as `SystemClock`'s actions once did).
    private static let cancellationReactions = DispatchQueue(label: "PKCore.Procedure.cancellationReactions")
}
