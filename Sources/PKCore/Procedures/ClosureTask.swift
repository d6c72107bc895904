/// The Swift `Task` running a procedure's `async` closure, cancelled when the procedure is.
///
/// The async forms of ``AsyncProcedure``, ``AsyncResultProcedure`` and ``AsyncTransformProcedure`` keep one each.
/// A cancel can be accepted at any moment, including while the Task is being created: ``start(for:_:)`` stores the
/// Task first and then looks at the procedure, and ``cancel()`` (called once the cancel was accepted) looks at what
/// is stored, so one of the two always sees the other.
final class ClosureTask: Sendable {
    private let task = PKMutex<Task<Void, Never>?>(nil)

    /// Starts `operation` in a new Task; cancels it at once when `procedure` was cancelled meanwhile.
    func start(for procedure: Procedure, _ operation: sending @escaping @isolated(any) () async -> Void) {
        let work = Task(operation: operation)
        task.withLock { $0 = work }
        if procedure.isCancelled { work.cancel() }
    }

    /// Cancels the Task, if it was started.
    func cancel() {
        task.withLock { $0 }?.cancel()
    }
}
