/// The lifecycle of the one task a network procedure runs: no locks, no callbacks, no clocks.
///
/// `idle` → (task made) → `running` → (completion) → `completed`. A cancel before the task is made is remembered
/// (`cancelledBeforeTask`) so that the task, once made, is resumed and cancelled at once (a task made but never
/// resumed would stay registered with its session). A cancel while running cancels the task once (`cancelling`),
/// or, for a task that may not be cancelled (``NetworkTaskCancellation/mayCancel(_:)``), abandons it (`abandoned`):
/// the procedure finishes at once and the task's eventual completion is ignored. The task is dropped at completion
/// or abandonment: nothing is retained past it.
struct NetworkTaskStateMachine {

    enum State {
        case idle
        case cancelledBeforeTask
        case running(any NetworkTask, mayCancel: Bool)
        case cancelling(any NetworkTask)
        /// Cancelled while running a task that may not be cancelled: the procedure finished without it.
        case abandoned
        case completed
    }

    enum StartAction {
        /// Resume the task.
        case resume(any NetworkTask)
        /// Resume the task and cancel it: the procedure was cancelled meanwhile.
        case resumeAndCancel(any NetworkTask)
        /// Resume the task and finish the procedure without it: the procedure was cancelled meanwhile and the task
        /// may not be cancelled.
        case resumeAndAbandon(any NetworkTask)
    }

    enum CancelAction {
        case none
        case cancel(any NetworkTask)
        /// Finish the procedure now; the task's completion will be ignored.
        case abandon
    }

    private(set) var state: State = .idle

    /// The procedure made its task; `mayCancel` says whether cancelling it is safe.
    mutating func taskMade(_ task: any NetworkTask, mayCancel: Bool) -> StartAction {
        switch state {
        case .idle:
            state = .running(task, mayCancel: mayCancel)
            return .resume(task)
        case .cancelledBeforeTask:
            guard mayCancel else {
                state = .abandoned
                return .resumeAndAbandon(task)
            }
            state = .cancelling(task)
            return .resumeAndCancel(task)
        case .running, .cancelling, .abandoned, .completed:
            preconditionFailure("a network procedure made a second task in state \(state)")
        }
    }

    /// The procedure was cancelled.
    mutating func cancel() -> CancelAction {
        switch state {
        case .idle:
            state = .cancelledBeforeTask
            return .none
        case .running(let task, let mayCancel):
            guard mayCancel else {
                state = .abandoned
                return .abandon
            }
            state = .cancelling(task)
            return .cancel(task)
        case .cancelledBeforeTask, .cancelling, .abandoned, .completed:
            return .none
        }
    }

    /// The task called its completion handler; returns `false` when the procedure should ignore it: a second call,
    /// or the completion of an abandoned task.
    mutating func taskCompleted() -> Bool {
        switch state {
        case .running, .cancelling:
            state = .completed
            return true
        case .abandoned:
            state = .completed
            return false
        case .completed:
            return false
        case .idle, .cancelledBeforeTask:
            preconditionFailure("a network task completed before it was made, in state \(state)")
        }
    }
}
