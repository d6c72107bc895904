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
            procedure.cancel(with: ProcedureKitError.taskCancelled())
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
