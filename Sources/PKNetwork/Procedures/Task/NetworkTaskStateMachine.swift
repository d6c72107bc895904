/// The lifecycle of the one task a network procedure runs: no locks, no callbacks, no clocks.
///
/// `idle` → (task made) → `running` → (completion) → `completed`. A cancel before the task is made is remembered
/// (`cancelledBeforeTask`) so that the task, once made, is resumed and cancelled at once (a task made but never
/// resumed would stay registered with its session). A cancel while running cancels the task once (`cancelling`).
/// The task is dropped at completion: nothing is retained past it.
struct NetworkTaskStateMachine {

    enum State {
        case idle
        case cancelledBeforeTask
        case running(any NetworkTask)
        case cancelling(any NetworkTask)
        case completed
    }

    enum StartAction {
        /// Resume the task.
        case resume(any NetworkTask)
        /// Resume the task and cancel it: the procedure was cancelled meanwhile.
        case resumeAndCancel(any NetworkTask)
    }

    enum CancelAction {
        case none
        case cancel(any NetworkTask)
    }

    private(set) var state: State = .idle

    /// The procedure made its task.
    mutating func taskMade(_ task: any NetworkTask) -> StartAction {
        switch state {
        case .idle:
            state = .running(task)
            return .resume(task)
        case .cancelledBeforeTask:
            state = .cancelling(task)
            return .resumeAndCancel(task)
        case .running, .cancelling, .completed:
            preconditionFailure("a network procedure made a second task in state \(state)")
        }
    }

    /// The procedure was cancelled.
    mutating func cancel() -> CancelAction {
        switch state {
        case .idle:
            state = .cancelledBeforeTask
            return .none
        case .running(let task):
            state = .cancelling(task)
            return .cancel(task)
        case .cancelledBeforeTask, .cancelling, .completed:
            return .none
        }
    }

    /// The task called its completion handler; returns `false` for a second call (ignored).
    mutating func taskCompleted() -> Bool {
        switch state {
        case .running, .cancelling:
            state = .completed
            return true
        case .completed:
            return false
        case .idle, .cancelledBeforeTask:
            preconditionFailure("a network task completed before it was made, in state \(state)")
        }
    }
}
