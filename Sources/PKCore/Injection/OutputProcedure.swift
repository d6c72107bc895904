/// A procedure that produces an output value (or an error instead).
///
/// Conforming types store `output`, usually as `var output: Pending<ProcedureResult<Output>> = .pending`, and
/// finish with ``finish(withResult:)``.
public protocol OutputProcedure: Procedure {
    /// The type of the output.
    associatedtype Output
    /// The output; `.pending` until the procedure produces it.
    var output: Pending<ProcedureResult<Output>> { get set }
}

extension OutputProcedure {
    /// Sets ``output`` to `result` and finishes: without errors on success, with the error on failure.
    public func finish(withResult result: ProcedureResult<Output>) {
        output = .ready(result)
        switch result {
        case .success: finish()
        case .failure(let error): finish(with: error)
        }
    }
}
