/// The lifecycle of a ``ShutdownCoordinator``, as a value: which procedures are watched, which phase shutdown is
/// in, and what the coordinator must do when something happens.
///
/// ```
/// running ──request or first signal──▶ shuttingDown ──grace period expires──▶ cancellingStragglers ──▶ finished
///                                       (grace period)   or a further signal    (cancellation period)
///                                             └─────────── nothing left to wait for ───────────────────▶ finished
/// ```
///
/// - `running`: procedures register and finish; nothing is cancelled.
/// - `shuttingDown`: entered on a request; procedures that asked to stop when shutdown is requested are cancelled
///   on entry (and at once if they register later). Ends when no watched procedure is left (→ `finished`), when
///   the grace period expires, or on a further signal (→ `cancellingStragglers`).
/// - `cancellingStragglers`: every procedure still watched is a straggler; those waiting for the grace period to
///   expire are cancelled on entry. Ends when none is left, when the cancellation period ends, or on a further
///   signal (→ `finished`).
/// - `finished`: carries the report. The procedures still watched get a last cancel on entry, and waiters are
///   resumed. Nothing is watched any more: a procedure registering now is cancelled at once.
///
/// Signals: the first handled signal requests shutdown (a programmatic request before it makes it a no-op); every
/// later one moves shutdown on by one phase, so an impatient operator can cut both periods short.
///
/// A pure value: no locks, clocks, callbacks or procedures. `Key` identifies a procedure, `Handle` is what the
/// owner cancels it through, `Waiter` is what it resumes with the report; tests use plain values for all three.
/// Each event returns what to do, and the owner does it outside its lock. Timers are the owner's: it schedules
/// them when an action says so, and reports their expiry as events; a timer expiring in a later phase than the
/// one that started it is ignored.
struct ShutdownStateMachine<Key: Hashable & Sendable, Handle: Sendable, Waiter: Sendable>: Sendable {

    typealias Behavior = BackgroundObserver.CancellationBehavior

    /// Why the machine asks for a procedure to be cancelled.
    enum Cause: Sendable, Equatable {
        /// Shutdown was requested and the procedure asked to stop then.
        case shutdownRequested
        /// The grace period is over: the procedure asked to stop then, or the coordinator is giving up waiting.
        case gracePeriodExpired
    }

    /// A procedure to cancel, and why.
    struct Cancellation: Sendable {
        let handle: Handle
        let cause: Cause
    }

    /// The outcome of a shutdown, handed over when the machine finishes.
    struct Finish: Sendable {
        /// What the waiters are resumed with.
        let report: ShutdownReport
        /// The last cancels: procedures still watched that had not been cancelled yet.
        let cancel: [Cancellation]
        /// Every waiter, in the order they were added, to resume with `report`.
        let waiters: [Waiter]
        /// `true` when shutdown began in this same event (nothing was watched): the owner has not told anyone it
        /// is stopping yet.
        let shutdownBeganNow: Bool
    }

    /// What the owner must do after a lifecycle event.
    enum Action: Sendable {
        /// Nothing.
        case none
        /// Shutdown began: cancel these, expect to be done within `stopTimeout`, and report the grace period's
        /// expiry after `gracePeriod`.
        case beginGracePeriod(cancel: [Cancellation], gracePeriod: Duration, stopTimeout: Duration)
        /// Also report the grace period's expiry after `gracePeriod` from now (whichever expiry comes first
        /// counts).
        case shortenGracePeriod(Duration)
        /// The grace period is over: cancel these, and report the cancellation period's end after `period`.
        case beginCancellationPeriod(cancel: [Cancellation], period: Duration)
        /// Shutdown is over: do what `Finish` says and cancel any timer still scheduled.
        case finish(Finish)
    }

    /// What the owner must do after a registration.
    enum RegisterAction: Sendable, Equatable {
        /// Nothing: the procedure is watched.
        case registered
        /// The procedure is watched (unless the machine has finished) and must be cancelled now.
        case cancel(Cause)
        /// The procedure was already watched: warn, keep the earlier-cancelling behaviour of the two, and cancel it
        /// now if `cancel` is given.
        case duplicate(cancel: Cause?)
    }

    /// What the owner must do after adding a waiter.
    enum WaiterAction: Sendable {
        /// Nothing yet: the waiter is resumed when the machine finishes.
        case wait
        /// Resume the waiter now with the report.
        case resume(Waiter, ShutdownReport)
    }

    /// A watched procedure.
    private struct Participant: Sendable {
        let order: Int
        let name: String
        var behavior: Behavior
        let handle: Handle
        var cancelled: Bool
        /// Its place in the straggler list, once it is a straggler.
        var stragglerIndex: Int?
    }

    /// What the grace and cancellation periods share.
    private struct Progress: Sendable {
        let reason: ShutdownReport.Reason
        var signalsReceived: Int
        var finishedDuringGracePeriod: [String]
    }

    private enum State: Sendable {
        case running
        case shuttingDown(Progress)
        case cancellingStragglers(Progress, stragglers: [ShutdownReport.Straggler])
        case finished(ShutdownReport)
    }

    private var state = State.running
    /// The procedures watched now; always empty once finished.
    private var participants: [Key: Participant] = [:]
    private var nextOrder = 0
    /// The waiters to resume when finished; always empty once finished.
    private var waiters: [Int: Waiter] = [:]

    /// The grace period a request without one of its own (a signal, ``requestShutdown(_:gracePeriod:)`` with
    /// `nil`) gets.
    var gracePeriod: Duration
    /// How long the machine waits after the grace period before it stops waiting.
    var cancellationPeriod: Duration

    init(gracePeriod: Duration, cancellationPeriod: Duration) {
        self.gracePeriod = gracePeriod
        self.cancellationPeriod = cancellationPeriod
    }

    // MARK: - Reading

    /// The public phase.
    var phase: ShutdownPhase {
        switch state {
        case .running: .running
        case .shuttingDown: .shuttingDown
        case .cancellingStragglers: .cancellingStragglers
        case .finished: .finished
        }
    }

    /// The number of procedures watched now.
    var participantCount: Int { participants.count }

    /// The handle of the procedure watched under `key`, if any.
    func handle(for key: Key) -> Handle? { participants[key]?.handle }

    /// Every watched procedure's key and handle.
    var handles: [(key: Key, handle: Handle)] { participants.map { ($0.key, $0.value.handle) } }

    // MARK: - Events

    /// A procedure asks to be watched.
    mutating func register(_ key: Key, name: String, behavior: Behavior, handle: Handle) -> RegisterAction {
        switch state {
        case .finished:
            // Nothing is watched any more; the procedure's moment to be cancelled has passed.
            return .cancel(behavior == .whenShutdownRequested ? .shutdownRequested : .gracePeriodExpired)
        case .running, .shuttingDown, .cancellingStragglers:
            break
        }
        if var existing = participants[key] {
            if behavior.cancellationRank < existing.behavior.cancellationRank {
                existing.behavior = behavior
                if let index = existing.stragglerIndex, case .cancellingStragglers(let progress, var stragglers) = state
                {
                    stragglers[index] = ShutdownReport.Straggler(
                        name: existing.name, behavior: behavior, finished: false)
                    state = .cancellingStragglers(progress, stragglers: stragglers)
                }
            }
            let cause = cancelIfDue(&existing)
            participants[key] = existing
            return .duplicate(cancel: cause)
        }
        var participant = Participant(
            order: nextOrder, name: name, behavior: behavior, handle: handle, cancelled: false, stragglerIndex: nil)
        nextOrder += 1
        if case .cancellingStragglers(let progress, var stragglers) = state {
            participant.stragglerIndex = stragglers.count
            stragglers.append(ShutdownReport.Straggler(name: name, behavior: behavior, finished: false))
            state = .cancellingStragglers(progress, stragglers: stragglers)
        }
        let cause = cancelIfDue(&participant)
        participants[key] = participant
        return cause.map { .cancel($0) } ?? .registered
    }

    /// A watched procedure finished (or was released without finishing); it is no longer watched.
    mutating func participantFinished(_ key: Key) -> Action {
        switch state {
        case .running:
            participants[key] = nil
            return .none
        case .shuttingDown(var progress):
            guard let participant = participants.removeValue(forKey: key) else { return .none }
            progress.finishedDuringGracePeriod.append(participant.name)
            state = .shuttingDown(progress)
            return participants.isEmpty ? finish(shutdownBeganNow: false) : .none
        case .cancellingStragglers(let progress, var stragglers):
            guard let participant = participants.removeValue(forKey: key) else { return .none }
            if let index = participant.stragglerIndex {
                stragglers[index] = ShutdownReport.Straggler(
                    name: participant.name, behavior: participant.behavior, finished: true)
            }
            state = .cancellingStragglers(progress, stragglers: stragglers)
            return participants.isEmpty ? finish(shutdownBeganNow: false) : .none
        case .finished:
            return .none
        }
    }

    /// Shutdown is requested, with a grace period of its own or (`nil`) the configured one. A request while
    /// shutting down only ever shortens the grace period; later requests do nothing.
    mutating func requestShutdown(_ reason: ShutdownReport.Reason, gracePeriod requested: Duration?) -> Action {
        switch state {
        case .running:
            let signals: Int
            switch reason {
            case .requested: signals = 0
            case .signal: signals = 1
            }
            state = .shuttingDown(Progress(reason: reason, signalsReceived: signals, finishedDuringGracePeriod: []))
            guard !participants.isEmpty else { return finish(shutdownBeganNow: true) }
            // Clamped so that the sum cannot overflow `Duration` (each may be up to about 1.7e20 s).
            let grace = (requested ?? gracePeriod).clampedForArithmetic
            return .beginGracePeriod(
                cancel: cancelDue(), gracePeriod: grace,
                stopTimeout: grace + cancellationPeriod.clampedForArithmetic)
        case .shuttingDown:
            return requested.map { .shortenGracePeriod($0) } ?? .none
        case .cancellingStragglers, .finished:
            return .none
        }
    }

    /// A handled signal arrived: the first requests shutdown, each later one moves shutdown on by one phase.
    mutating func signalReceived(_ signal: Int32) -> Action {
        switch state {
        case .running:
            return requestShutdown(.signal(signal), gracePeriod: nil)
        case .shuttingDown(var progress):
            progress.signalsReceived += 1
            state = .shuttingDown(progress)
            return progress.signalsReceived > 1 ? gracePeriodExpired() : .none
        case .cancellingStragglers(var progress, let stragglers):
            progress.signalsReceived += 1
            state = .cancellingStragglers(progress, stragglers: stragglers)
            return progress.signalsReceived > 1 ? finish(shutdownBeganNow: false) : .none
        case .finished:
            return .none
        }
    }

    /// The grace period expired (or a signal cut it short).
    mutating func gracePeriodExpired() -> Action {
        switch state {
        case .running:
            preconditionFailure("ShutdownStateMachine: the grace period expired in state \(state)")
        case .shuttingDown(let progress):
            var stragglers: [ShutdownReport.Straggler] = []
            for key in orderedKeys() {
                participants[key]?.stragglerIndex = stragglers.count
                if let participant = participants[key] {
                    stragglers.append(
                        ShutdownReport.Straggler(
                            name: participant.name, behavior: participant.behavior, finished: false))
                }
            }
            state = .cancellingStragglers(progress, stragglers: stragglers)
            // Never empty here: the last procedure to finish while shutting down finishes the machine.
            guard !participants.isEmpty else { return finish(shutdownBeganNow: false) }
            return .beginCancellationPeriod(cancel: cancelDue(), period: cancellationPeriod)
        case .cancellingStragglers, .finished:
            return .none  // a later timer, or one that lost to a signal
        }
    }

    /// The cancellation period ended: stop waiting.
    mutating func cancellationPeriodExpired() -> Action {
        switch state {
        case .running, .shuttingDown:
            preconditionFailure("ShutdownStateMachine: the cancellation period ended in state \(state)")
        case .cancellingStragglers:
            return finish(shutdownBeganNow: false)
        case .finished:
            return .none  // everything finished before the timer fired
        }
    }

    /// Someone waits for the report.
    mutating func addWaiter(_ id: Int, _ waiter: Waiter) -> WaiterAction {
        switch state {
        case .finished(let report):
            return .resume(waiter, report)
        case .running, .shuttingDown, .cancellingStragglers:
            waiters[id] = waiter
            return .wait
        }
    }

    /// A waiter gives up (its Task was cancelled); returns it unless the machine already resumed it.
    mutating func removeWaiter(_ id: Int) -> Waiter? {
        waiters.removeValue(forKey: id)
    }

    // MARK: - Steps

    /// Finishes: builds the report, collects the last cancels and the waiters, and forgets every participant.
    private mutating func finish(shutdownBeganNow: Bool) -> Action {
        let report: ShutdownReport
        switch state {
        case .running, .finished:
            preconditionFailure("ShutdownStateMachine: finishing in state \(state)")
        case .shuttingDown(let progress):
            report = ShutdownReport(
                reason: progress.reason, signalsReceived: progress.signalsReceived,
                finishedDuringGracePeriod: progress.finishedDuringGracePeriod)
        case .cancellingStragglers(let progress, let stragglers):
            report = ShutdownReport(
                reason: progress.reason, signalsReceived: progress.signalsReceived,
                finishedDuringGracePeriod: progress.finishedDuringGracePeriod, stragglers: stragglers)
        }
        let cancel = orderedKeys().compactMap { key -> Cancellation? in
            guard let participant = participants[key], !participant.cancelled else { return nil }
            return Cancellation(handle: participant.handle, cause: .gracePeriodExpired)
        }
        let resumed = waiters.sorted { $0.key < $1.key }.map(\.value)
        participants = [:]
        waiters = [:]
        state = .finished(report)
        return .finish(Finish(report: report, cancel: cancel, waiters: resumed, shutdownBeganNow: shutdownBeganNow))
    }

    /// Marks and returns, in registration order, every participant the current phase says to cancel.
    private mutating func cancelDue() -> [Cancellation] {
        orderedKeys().compactMap { key -> Cancellation? in
            guard var participant = participants[key], let cause = cancelIfDue(&participant) else { return nil }
            participants[key] = participant
            return Cancellation(handle: participant.handle, cause: cause)
        }
    }

    /// Whether the current phase says to cancel `participant` now (it has not been yet); marks it cancelled if so.
    private func cancelIfDue(_ participant: inout Participant) -> Cause? {
        guard !participant.cancelled else { return nil }
        let cause: Cause?
        switch (state, participant.behavior) {
        case (.running, _):
            cause = nil
        case (.shuttingDown, .whenShutdownRequested), (.cancellingStragglers, .whenShutdownRequested),
            (.finished, .whenShutdownRequested):
            cause = .shutdownRequested
        case (.shuttingDown, .whenGracePeriodExpires), (.shuttingDown, .never):
            cause = nil
        case (.cancellingStragglers, .whenGracePeriodExpires), (.finished, .whenGracePeriodExpires),
            (.finished, .never):
            cause = .gracePeriodExpired
        case (.cancellingStragglers, .never):
            cause = nil
        }
        if cause != nil { participant.cancelled = true }
        return cause
    }

    /// The watched procedures' keys in the order they registered.
    private func orderedKeys() -> [Key] {
        participants.sorted { $0.value.order < $1.value.order }.map(\.key)
    }
}

// Comparable actions, for the machine's own tests (plain values as handles and waiters).
extension ShutdownStateMachine.Cancellation: Equatable where Handle: Equatable {}
extension ShutdownStateMachine.Finish: Equatable where Handle: Equatable, Waiter: Equatable {}
extension ShutdownStateMachine.Action: Equatable where Handle: Equatable, Waiter: Equatable {}
extension ShutdownStateMachine.WaiterAction: Equatable where Waiter: Equatable {}
