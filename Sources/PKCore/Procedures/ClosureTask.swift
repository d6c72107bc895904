/// The Swift `Task` running a procedure's `async` closure, cancelled when the procedure is.
///
/// The async forms of ``AsyncProcedure``, ``AsyncResultProcedure`` and ``AsyncTransformProcedure`` keep one each.
/// A cancel can be accepted at any moment, including while the Task is being created: ``start(for:_:complete:)`` stores the
/// Task first and then looks at the procedure, and ``cancel()`` (called once the cancel was accepted) looks at what
/// is stored, so one of the two always sees the other.
final class ClosureTask: Sendable {
    private let task = PKMutex<Task<Void, Never>?>(nil)

    /// Starts `operation` in a new Task; cancels it at once when `procedure` was cancelled meanwhile.
    private func start(for procedure: Procedure, _ operation: sending @escaping @isolated(any) () async -> Void) {
        let work = Task(operation: operation)
        task.withLock { $0 = work }
        if procedure.isCancelled { work.cancel() }
    }

    /// Starts `body` in a new Task for `procedure` and hands its result to `complete`, with `true` when the failure is
    /// a `CancellationError` thrown because the procedure was cancelled (which the procedure does not record as an
    /// error: it is cancelled already).
    func start<Value: Sendable>(
        for procedure: Procedure, _ body: @escaping @Sendable () async throws -> Value,
        complete: @escaping @Sendable (ProcedureResult<Value>, _ becauseCancelled: Bool) -> Void
    ) {
        start(for: procedure) {
            do {
                complete(.success(try await body()), false)
            } catch is CancellationError where procedure.isCancelled {
                complete(.failure(CancellationError()), true)
            } catch {
                complete(.failure(error), false)
            }
        }
    }

    /// Cancels the Task, if it was started.
    func cancel() {
        task.withLock { $0 }?.cancel()
    }
}
