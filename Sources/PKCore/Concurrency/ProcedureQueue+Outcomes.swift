extension ProcedureQueue {

    /// Adds `procedures` and returns their outcomes as they finish.
    ///
    /// The procedures are added at once, so the queue's ``maxConcurrentOperationCount`` bounds how many run at a
    /// time. Each outcome's result is read as ``run(_:)->()`` reads it. See ``ProcedureOutcomes`` for when the sequence
    /// ends and how stopping early cancels what is left.
    public func outcomes<P: Procedure>(of procedures: [P]) -> ProcedureOutcomes<P, Void> {
        start(procedures) { $0.finishedResult() }
    }

    /// Adds `procedures` and returns their outcomes, with their output values, as they finish.
    ///
    /// As the plain form; a successful procedure's result is its output value, a failed output is a failure.
    public func outcomes<P: OutputProcedure>(of procedures: [P]) -> ProcedureOutcomes<P, P.Output>
    where P.Output: Sendable {
        start(procedures) { $0.finishedOutputResult() }
    }

    /// Adds `procedures`, waits for all of them to finish and returns their results in the order given: the values
    /// of those that succeeded, and the errors of those that failed or were cancelled.
    ///
    /// ```swift
    /// let results = await queue.results(of: urls.map { FetchProcedure(url: $0) })
    /// let pages = results.compactMap { try? $0.get() }
    /// ```
    ///
    /// Each result is read as ``run(_:)->()`` reads it. Cancelling the awaiting Task cancels the procedures not
    /// finished yet (their results are then `CancellationError`, or the errors they finish with).
    public func results<P: OutputProcedure>(of procedures: [P]) async -> [Result<P.Output, any Error>]
    where P.Output: Sendable {
        await runAll(procedures)
        return procedures.map { $0.finishedOutputResult() }
    }

    /// Adds `procedures`, waits for all of them to finish and returns their results in the order given; see the
    /// output form.
    public func results<P: Procedure>(of procedures: [P]) async -> [Result<Void, any Error>] {
        await runAll(procedures)
        return procedures.map { $0.finishedResult() }
    }

    private func runAll(_ procedures: [some Procedure]) async {
        await withTaskCancellationHandler {
            add(procedures: procedures)
            for procedure in procedures { await procedure.waitUntilFinished() }
        } onCancel: {
            Procedure.cancelFromTaskCancellationHandler(procedures)
        }
    }

    private func start<P: Procedure, Value: Sendable>(
        _ procedures: [P], read: @escaping @Sendable (P) -> Result<Value, any Error>
    ) -> ProcedureOutcomes<P, Value> {
        let channel = OutcomeChannel(procedures: procedures)
        let sequence = ProcedureOutcomes(channel: channel, procedures: procedures, read: read)
        channel.listen()
        add(procedures: procedures)
        return sequence
    }
}
