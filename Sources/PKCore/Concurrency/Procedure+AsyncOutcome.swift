// How a finished procedure's outcome reads to `async` callers: ``ProcedureQueue/run(_:)`` throws through this.
extension Procedure {
    /// Throws when the finished procedure was cancelled or failed: `CancellationError` when cancelled without
    /// errors (or because the awaiting Task was cancelled), the error itself when there is one, and a
    /// ``ProcedureKitError`` with context ``ProcedureKitError/Context/multipleErrors`` wrapping them when there
    /// are several.
    func throwIfUnsuccessful() throws {
        let (cancelled, errors) = storage.withLock { ($0.machine.isCancelled, $0.machine.errors) }
        if errors.isEmpty {
            if cancelled { throw CancellationError() }
            return
        }
        if errors.count == 1 {
            if let error = errors[0] as? ProcedureKitError, error.context == .taskCancelled {
                throw CancellationError()
            }
            throw errors[0]
        }
        throw ProcedureKitError(context: .multipleErrors, errors: errors)
    }
}
