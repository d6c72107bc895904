import PKCore

/// Owns a network procedure's ``NetworkTaskStateMachine`` and performs its actions outside the lock.
final class NetworkTaskController: Sendable {

    private let machine = PKMutex(NetworkTaskStateMachine())

    /// Records `task` and resumes it (and cancels it, when the procedure was cancelled meanwhile).
    func start(_ task: any NetworkTask) {
        switch machine.withLock({ $0.taskMade(task) }) {
        case .resume(let task):
            task.resume()
        case .resumeAndCancel(let task):
            task.resume()
            task.cancel()
        }
    }

    /// Cancels the task, if one is running.
    func cancel() {
        if case .cancel(let task) = machine.withLock({ $0.cancel() }) { task.cancel() }
    }

    /// Marks the task completed and drops it; `false` for a repeated completion.
    func complete() -> Bool {
        machine.withLock { $0.taskCompleted() }
    }
}

/// The DidCancel observer that cancels a network procedure's task (ProcedureKit cancels through an observer,
/// not an override, so a subclass cannot lose it). Holds the controller, not the procedure.
struct NetworkTaskCancelObserver: ProcedureObserver {
    let controller: NetworkTaskController

    func did(cancel procedure: Procedure, withErrors errors: [any Error]) {
        controller.cancel()
    }
}
