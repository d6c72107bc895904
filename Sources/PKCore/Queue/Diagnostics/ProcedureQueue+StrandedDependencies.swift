import Foundation

/// Stranded dependencies: a procedure on the queue that waits for a procedure on no queue waits for ever, silently
/// (Foundation's `OperationQueue` hangs the same way). The queue notices when a procedure arrives with a dependency
/// that is not enqueued (the dependency's lock is taken then anyway), and looks again once the policy's delay has
/// passed: a dependency still on no queue then gets a warning naming both, and, with ``ProcedureQueue/StrandedDependencyPolicy/cancel(after:)``,
/// the waiting procedure is cancelled with ``ProcedureKitError/Context/dependencyNotEnqueued(_:)``.
///
/// Nothing is done, and nothing is allocated, for an arrival whose dependencies are all enqueued or finished.
extension ProcedureQueue {

    /// What a queue does about a procedure that waits for a dependency on no queue.
    public enum StrandedDependencyPolicy: Sendable, Equatable {
        /// Nothing.
        case ignore
        /// Logs a warning naming the procedure and its dependencies on no queue if they are still on none after
        /// the delay.
        case warn(after: Duration)
        /// Logs the warning and cancels the waiting procedure with
        /// ``ProcedureKitError/Context/dependencyNotEnqueued(_:)``.
        case cancel(after: Duration)

        /// The default: a warning after one second.
        public static let `default` = StrandedDependencyPolicy.warn(after: .seconds(1))

        var delay: Duration? {
            switch self {
            case .ignore: nil
            case .warn(let delay), .cancel(let delay): delay
            }
        }
    }

    /// What the queue does when a procedure on it waits for a dependency that is on no queue (not added to any
    /// queue, so it can never finish). ``StrandedDependencyPolicy/default`` warns after one second.
    ///
    /// A group's child that the group has not added yet (the group has not started) is on no queue too: a
    /// procedure outside the group that depends on it is reported if the group starts later than the delay.
    public var strandedDependencyPolicy: StrandedDependencyPolicy {
        get { state.withLock { $0.strandedDependencies.policy } }
        set { state.withLock { $0.strandedDependencies.policy = newValue } }
    }

    /// `procedure` arrived (or was given a dependency) while one of its dependencies was on no queue: looks again
    /// after the policy's delay.
    func watchForStrandedDependencies(of procedure: Procedure) {
        let schedule = state.withLock { state -> Duration? in
            state.strandedDependencies.watch(procedure, now: ContinuousClock.now)
        }
        if let schedule { scheduleStrandedCheck(after: schedule) }
    }

    private func scheduleStrandedCheck(after delay: Duration) {
        let seconds = delay.clampedForArithmetic.timeInterval
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + max(0, seconds)) { [weak self] in
            self?.checkForStrandedDependencies()
        }
    }

    /// Looks at the watched procedures whose delay has passed by `now` (tests pass a later instant to look at once).
    func checkForStrandedDependencies(now: ContinuousClock.Instant = .now) {
        let (due, policy, next) = state.withLock { $0.strandedDependencies.takeDue(now: now) }
        if let next { scheduleStrandedCheck(after: next) }
        let cancelling: Bool
        switch policy {
        case .ignore: return  // changed since the procedures were watched
        case .warn: cancelling = false
        case .cancel: cancelling = true
        }
        for procedure in due {
            let stranded = procedure.strandedDependencies()
            guard !stranded.isEmpty else { continue }
            let names = stranded.map(\.procedureName)
            Log.write(
                .warning,
                "\(procedure.procedureName) waits for \(names.joined(separator: ", ")), on no queue: it cannot start "
                    + "until they are added to one (a group's child is added when the group starts)"
                    + (cancelling ? "; cancelling it" : ""), subsystem: name)
            if cancelling { procedure.cancel(withErrors: [ProcedureKitError.dependencyNotEnqueued(names)]) }
        }
    }
}

extension Procedure {
    /// The procedures this one waits for that are on no queue; empty unless it is still waiting for dependencies.
    final func strandedDependencies() -> [Procedure] {
        let dependencies = storage.withLock { state -> [Operation] in
            state.readiness.isWaitingForDependencies ? state.dependencies.array : []
        }
        return dependencies.compactMap { $0 as? Procedure }.filter(\.isOnNoQueue)
    }
}

/// Procedures to look at again for stranded dependencies, each once its delay has passed. Lives in the queue's
/// state, under its mutex.
struct StrandedDependencyWatch {
    var policy = ProcedureQueue.StrandedDependencyPolicy.default
    private var watched: [(procedure: WeakProcedure, due: ContinuousClock.Instant)] = []
    private var checkScheduled = false

    /// Watches `procedure`; returns the delay after which to schedule a check, when none is scheduled yet.
    mutating func watch(_ procedure: Procedure, now: ContinuousClock.Instant) -> Duration? {
        guard let delay = policy.delay else { return nil }
        watched.append((WeakProcedure(procedure), now + delay))
        guard !checkScheduled else { return nil }
        checkScheduled = true
        return delay
    }

    /// Takes the procedures whose delay has passed (and are still alive), with the policy, and the delay until
    /// the next is due if others remain (a check must then be scheduled).
    mutating func takeDue(now: ContinuousClock.Instant) -> (
        [Procedure], ProcedureQueue.StrandedDependencyPolicy, Duration?
    ) {
        var due: [Procedure] = []
        var remaining: [(procedure: WeakProcedure, due: ContinuousClock.Instant)] = []
        for entry in watched {
            guard let procedure = entry.procedure.value else { continue }
            if entry.due <= now { due.append(procedure) } else { remaining.append(entry) }
        }
        watched = remaining
        guard let next = remaining.map(\.due).min() else {
            checkScheduled = false
            return (due, policy, nil)
        }
        return (due, policy, next - now)
    }
}

/// A procedure held weakly.
struct WeakProcedure {
    weak var value: Procedure?

    init(_ value: Procedure) {
        self.value = value
    }
}
