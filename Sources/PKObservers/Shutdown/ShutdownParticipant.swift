import PKCore

/// A long-lived part of a program that its ``ShutdownCoordinator`` stops, in turn, when the process shuts down:
/// a server, a consumer, a connection pool, a metrics flusher. Created by
/// ``ShutdownCoordinator/addParticipant(named:stopOrder:stop:)``.
///
/// Keep it to take the participant out again (``remove()``), or to shut the rest of the program down when the part
/// it stands for fails (``requestShutdown(dueTo:)``). Dropping it changes nothing: the coordinator holds the
/// participant, and its stop closure, until the stop has returned or the participant is removed.
///
/// Thread-safe: every member may be called from any thread.
public final class ShutdownParticipant: Sendable {

    /// The name the report and the logs give it.
    public let name: String

    /// Where it stops among the participants: lower stops first; among equal stop orders, the most recently added
    /// stops first.
    public let stopOrder: Int

    /// How the coordinator knows it.
    let id: Int

    /// Weak: the coordinator holds the participant until it has stopped.
    private weak let coordinator: ShutdownCoordinator?
    private let stop: @Sendable () async throws -> Void

    /// Where the stop's Task stands. The coordinator begins the stop at most once, and may hurry it (cancel it)
    /// before or after it began: a hurry that comes first is kept and applied when the Task is created.
    private enum StopTask: Sendable {
        case notBegun(hurried: Bool)
        case begun(Task<Void, Never>)
    }

    // Never held while the Task is created, run or cancelled; taken without holding the coordinator's lock.
    private let stopTask = PKMutex(StopTask.notBegun(hurried: false))

    init(
        id: Int, name: String, stopOrder: Int, coordinator: ShutdownCoordinator,
        stop: @escaping @Sendable () async throws -> Void
    ) {
        self.id = id
        self.name = name
        self.stopOrder = stopOrder
        self.coordinator = coordinator
        self.stop = stop
    }

    /// Takes the participant out of its coordinator: its stop is not called (unless it has begun already, in which
    /// case the coordinator still waits for it to return). Use it when the part it stands for has stopped by
    /// itself, or from the scope that owned it, so that nothing keeps it alive. Removing it twice does nothing.
    public func remove() {
        coordinator?.removeParticipant(id)
    }

    /// Reports that the part of the program this participant stands for has failed, and requests shutdown of the
    /// rest with the failure as its reason (``ShutdownReport/Reason/failure(_:)``).
    ///
    /// Calling it is the opt-in, as `requestsShutdownOnFailure` is for a ``BackgroundObserver``. The participant
    /// stays registered, so its stop is still called in its turn: remove it first if there is nothing left to stop.
    /// When shutdown was already requested, this changes nothing and the failure is not reported.
    public func requestShutdown(dueTo error: any Error) {
        coordinator?.requestShutdown(dueTo: ShutdownReport.Failure(name: name, error: error))
    }

    /// Runs the stop in a Task of its own, and reports its return to `coordinator`.
    func beginStop(reportingTo coordinator: ShutdownCoordinator) {
        let (id, stop) = (id, stop)
        // Hurried before it began (a stop begun after the grace period, or after the end): the Task cancels itself
        // before the stop runs, so the stop never sees itself uncancelled (a `cancel()` after creating the Task
        // would race with its start on another core).
        let hurriedBefore = stopTask.withLock { state -> Bool in
            if case .notBegun(let hurried) = state { return hurried }
            return false
        }
        let task = Task {
            if hurriedBefore { withUnsafeCurrentTask { $0?.cancel() } }
            var failure: (any Error)?
            do {
                try await stop()
            } catch {
                failure = error
            }
            coordinator.participantDidStop(id, error: failure)
        }
        let hurried = stopTask.withLock { state -> Bool in
            switch state {
            case .notBegun(let hurried):
                state = .begun(task)
                return hurried
            case .begun:
                preconditionFailure("ShutdownParticipant: the stop of \(name) began twice")
            }
        }
        if hurried { task.cancel() }
    }

    /// Cancels the stop's Task, now if it has begun, as soon as it begins otherwise.
    func hurry() {
        let task = stopTask.withLock { state -> Task<Void, Never>? in
            switch state {
            case .notBegun:
                state = .notBegun(hurried: true)
                return nil
            case .begun(let task):
                return task
            }
        }
        task?.cancel()
    }
}
