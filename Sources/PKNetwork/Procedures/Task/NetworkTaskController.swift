import PKCore

/// Owns a network procedure's ``NetworkTaskStateMachine`` and performs its actions outside the lock.
final class NetworkTaskController: Sendable {

    private let machine = PKMutex(NetworkTaskStateMachine())

    /// Records `task` and resumes it (and cancels it, when the procedure was cancelled meanwhile). Returns `true`
    /// when the procedure was cancelled meanwhile and the task may not be cancelled: the caller then finishes the
    /// procedure without waiting for the task.
    func start(_ task: any NetworkTask) -> Bool {
        let mayCancel = NetworkTaskCancellation.mayCancel(task)
        switch machine.withLock({ $0.taskMade(task, mayCancel: mayCancel) }) {
        case .resume(let task):
            task.resume()
            return false
        case .resumeAndCancel(let task):
            task.resume()
            task.cancel()
            return false
        case .resumeAndAbandon(let task):
            task.resume()
            return true
        }
    }

    /// Cancels the task, if one is running. Returns `true` when the task was abandoned instead (it may not be
    /// cancelled): the caller then finishes the procedure without waiting for the task.
    func cancel() -> Bool {
        switch machine.withLock({ $0.cancel() }) {
        case .none: return false
        case .cancel(let task):
            task.cancel()
            return false
        case .abandon: return true
        }
    }

    /// Marks the task completed and drops it; `false` for a completion to ignore (repeated, or of an abandoned task).
    func complete() -> Bool {
        machine.withLock { $0.taskCompleted() }
    }
}

/// The DidCancel observer that cancels a network procedure's task (ProcedureKit cancels through an observer,
/// not an override, so a subclass cannot lose it), or, when the task may not be cancelled, finishes the procedure
/// without it. Holds the controller, not the procedure.
struct NetworkTaskCancelObserver: ProcedureObserver {
    let controller: NetworkTaskController

    func did(cancel procedure: Procedure, withErrors errors: [any Error]) {
        if controller.cancel() { procedure.finish() }
    }
}
