/// A procedure that has finished, and how: what ``ProcedureQueue/outcomes(of:)->ProcedureOutcomes<P,P.Output>`` delivers.
public struct ProcedureOutcome<P: Procedure, Value: Sendable>: Sendable {
    /// The procedure, finished.
    public let procedure: P
    /// Its position in the procedures given to ``ProcedureQueue/outcomes(of:)->ProcedureOutcomes<P,P.Output>``.
    public let index: Int
    /// Its value (`Void` for a procedure without output), or why there is none, by the rules of
    /// ``ProcedureQueue/run(_:)->()``: `CancellationError` for a cancellation without errors, the error when there is
    /// one, a ``ProcedureKitError`` with context ``ProcedureKitError/Context/multipleErrors`` when there are several,
    /// then the output's error, or ``ProcedureKitError/requirementNotSatisfied()`` for an output still pending.
    public let result: Result<Value, any Error>

    /// Creates an outcome.
    public init(procedure: P, index: Int, result: Result<Value, any Error>) {
        self.procedure = procedure
        self.index = index
        self.result = result
    }

    /// The value, or `nil` when the procedure failed or was cancelled.
    public var value: Value? { try? result.get() }

    /// The error, or `nil` when the procedure succeeded.
    public var error: (any Error)? {
        if case .failure(let error) = result { return error }
        return nil
    }
}

extension Procedure {
    /// The result of a finished procedure, read as ``ProcedureQueue/run(_:)->()`` reads it.
    final func finishedResult() -> Result<Void, any Error> {
        Result { try throwIfUnsuccessful() }
    }
}

extension OutputProcedure {
    /// The result of a finished output procedure, read as ``ProcedureQueue/run(_:)->()`` reads it.
    func finishedOutputResult() -> Result<Output, any Error> {
        Result {
            try throwIfUnsuccessful()
            return try output.get()
        }
    }
}
