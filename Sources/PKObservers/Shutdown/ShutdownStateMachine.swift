/// The lifecycle of a ``ShutdownCoordinator``, as a value: which procedures are watched, which participants are
/// registered and where their stops stand, who listens for the request, which phase shutdown is in, and what the
/// coordinator must do when something happens.
///
/// ```
/// running ──request or first signal──▶ shuttingDown ──grace period expires──▶ cancellingStragglers ──▶ finished
///                                       (grace period)   or a further signal    (cancellation period)
///                                             └─────────── nothing left to wait for ───────────────────▶ finished
/// ```
///
/// - `running`: procedures register and finish, participants are added and removed, request listeners wait;
///   nothing is cancelled or stopped.
/// - `shuttingDown`: entered on a request; the request listeners are told (and a listener added later is told at
///   once), procedures that asked to stop when shutdown is requested are cancelled on entry (and at once if they
///   register later), and the participants are stopped one at a time: in ascending stop order, the most recently
///   added first among equals, each stop begun only once the one before it has returned. Ends when no watched
///   procedure and no participant is left (→ `finished`), when the grace period expires, or on a further signal
///   (→ `cancellingStragglers`).
/// - `cancellingStragglers`: every procedure still watched is a straggler; those waiting for the grace period to
///   expire are cancelled on entry. The stop in progress is cancelled, and every participant not stopped yet
///   begins its stop at once, already cancelled: order no longer matters once time has run out. Ends when nothing
///   is left, when the cancellation period ends, or on a further signal (→ `finished`).
/// - `finished`: carries the report. The procedures still watched get a last cancel on entry, and waiters are
///   resumed. Nothing is watched any more: a procedure registering now is cancelled at once, and a participant
///   added now is stopped at once, already cancelled, with nobody waiting for it.
///
/// Signals: the first handled signal requests shutdown (a programmatic request before it makes it a no-op); every
/// later one moves shutdown on by one phase, so an impatient operator can cut both periods short.
///
/// A pure value: no locks, clocks, callbacks or procedures. `Key` identifies a procedure, `Handle` is what the
/// owner cancels a procedure or stops a participant through, `Listener` is what it tells of the request or
/// resumes with the report; tests use plain values for all three. Participants, listeners and waiters are named
/// by numbers the owner hands out. Each event returns what to do, and the owner does it outside its lock. Timers
/// are the owner's: it schedules them when an action says so, and reports their expiry as events; a timer
/// expiring in a later phase than the one that started it is ignored. So are participants' stops: the owner runs
/// one when a ``Notices`` says so, cancels it when one says to hurry it, and reports its return as an event.
struct ShutdownStateMachine<Key: Hashable & Sendable, Handle: Sendable, Listener: Sendable>: Sendable {

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

    /// Shutdown was requested: the listeners to tell, and why it was.
    struct RequestNotice: Sendable {
        let reason: ShutdownReport.Reason
        /// In the order they were added.
        let listeners: [Listener]
    }

    /// Whom the owner tells what after an event, in this order: the request's listeners, the procedures to
    /// cancel, the participants whose stop is cancelled (hurried), the participants whose stop begins (so that one
    /// both hurried and begun now begins already cancelled).
    struct Notices: Sendable {
        /// Set by the event that requested shutdown.
        var requested: RequestNotice?
        /// Procedures, in the order they registered.
        var cancel: [Cancellation]
        /// Participants whose stop begins now, in stop order.
        var stop: [Handle]
        /// Participants whose stop (begun now or earlier) is cancelled now: time has run out.
        var hurry: [Handle]

        init(
            requested: RequestNotice? = nil, cancel: [Cancellation] = [], stop: [Handle] = [], hurry: [Handle] = []
        ) {
            self.requested = requested
            self.cancel = cancel
            self.stop = stop
            self.hurry = hurry
        }
    }

    /// The outcome of a shutdown, handed over when the machine finishes.
    struct Finish: Sendable {
        /// What the waiters are resumed with.
        let report: ShutdownReport
        /// The request's listeners when shutdown began in this same event, and the last cancels: procedures still
        /// watched that had not been cancelled yet.
        let notices: Notices
        /// Every waiter, in the order they were added, to resume with `report`.
        let waiters: [Listener]
        /// `true` when shutdown began in this same event (nothing was watched): the owner has not told anyone it
        /// is stopping yet.
        let shutdownBeganNow: Bool
    }

    /// What the owner must do after a lifecycle event.
    enum Action: Sendable {
        /// Nothing.
        case none
        /// Shutdown began: do what the notices say, expect to be done within `stopTimeout`, and report the grace
        /// period's expiry after `gracePeriod`.
        case beginGracePeriod(Notices, gracePeriod: Duration, stopTimeout: Duration)
        /// Also report the grace period's expiry after `gracePeriod` from now (whichever expiry comes first
        /// counts).
        case shortenGracePeriod(Duration)
        /// The grace period is over: do what the notices say, and report the cancellation period's end after
        /// `period`.
        case beginCancellationPeriod(Notices, period: Duration)
        /// Within a phase: do what the notices say (the next participant's stop, a late participant's).
        case notify(Notices)
        /// Shutdown is over: do what `Finish` says and cancel any timer still scheduled.
        case finish(Finish)
    }

    /// What the owner must do after a procedure's registration.
    enum RegisterAction: Sendable, Equatable {
        /// Nothing: the procedure is watched.
        case registered
        /// The procedure is watched (unless the machine has finished) and must be cancelled now.
        case cancel(Cause)
        /// The procedure was already watched: warn, keep the earlier-cancelling behaviour of the two, and cancel it
        /// now if `cancel` is given.
        case duplicate(cancel: Cause?)
    }

    /// What the owner must do after adding a waiter for the report.
    enum WaiterAction: Sendable {
        /// Nothing yet: the waiter is resumed when the machine finishes.
        case wait
        /// Resume the waiter now with the report.
        case resume(Listener, ShutdownReport)
    }

    /// What the owner must do after adding a listener for the request.
    enum RequestListenerAction: Sendable {
        /// Nothing yet: the listener is told when shutdown is requested.
        case wait
        /// Tell the listener now: shutdown was requested already, for this reason.
        case notify(Listener, ShutdownReport.Reason)
    }

    /// A watched procedure.
    private struct WatchedProcedure: Sendable {
        let order: Int
        let name: String
        var behavior: Behavior
        let handle: Handle
        var cancelled: Bool
        /// Its place in the straggler list, once it is a straggler.
        var stragglerIndex: Int?
    }

    /// A registered participant.
    private struct Participant: Sendable {
        /// Where a participant's stop stands.
        enum Stage: Sendable {
            /// Its stop has not begun.
            case waiting
            /// Its stop has begun and not returned; `reportIndex` is its place in the report's participant list.
            case stopping(reportIndex: Int)
        }

        let name: String
        let stopOrder: Int
        /// When it was added: among equal stop orders, the highest stops first.
        let sequence: Int
        let handle: Handle
        var stage: Stage
    }

    /// What the grace and cancellation periods share.
    private struct Progress: Sendable {
        let reason: ShutdownReport.Reason
        var signalsReceived: Int
        var finishedDuringGracePeriod: [String]
        /// Every participant whose stop has begun, in the order the stops began; `stillStopping` until it returns.
        var participantStops: [ShutdownReport.ParticipantStop] = []
    }

    private enum State: Sendable {
        case running
        case shuttingDown(Progress)
        case cancellingStragglers(Progress, stragglers: [ShutdownReport.Straggler])
        case finished(ShutdownReport)
    }

    private var state = State.running
    /// The procedures watched now; always empty once finished.
    private var watched: [Key: WatchedProcedure] = [:]
    private var nextOrder = 0
    /// The participants registered and not stopped yet (waiting or stopping); always empty once finished.
    private var participants: [Int: Participant] = [:]
    private var nextParticipantSequence = 0
    /// The listeners waiting for the request; always empty once shutdown has been requested.
    private var requestListeners: [Int: Listener] = [:]
    /// The waiters to resume when finished; always empty once finished.
    private var waiters: [Int: Listener] = [:]

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
    var watchedCount: Int { watched.count }

    /// The number of participants registered and not stopped yet.
    var participantCount: Int { participants.count }

    /// The number of listeners waiting for the request.
    var requestListenerCount: Int { requestListeners.count }

    /// The handle of the procedure watched under `key`, if any.
    func watchedHandle(for key: Key) -> Handle? { watched[key]?.handle }

    /// Every watched procedure's key and handle.
    var watchedHandles: [(key: Key, handle: Handle)] { watched.map { ($0.key, $0.value.handle) } }

    // MARK: - Events: procedures

    /// A procedure asks to be watched.
    mutating func register(_ key: Key, name: String, behavior: Behavior, handle: Handle) -> RegisterAction {
        switch state {
        case .finished:
            // Nothing is watched any more; the procedure's moment to be cancelled has passed.
            return .cancel(behavior == .whenShutdownRequested ? .shutdownRequested : .gracePeriodExpired)
        case .running, .shuttingDown, .cancellingStragglers:
            break
        }
        if var existing = watched[key] {
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
            watched[key] = existing
            return .duplicate(cancel: cause)
        }
        var procedure = WatchedProcedure(
            order: nextOrder, name: name, behavior: behavior, handle: handle, cancelled: false, stragglerIndex: nil)
        nextOrder += 1
        if case .cancellingStragglers(let progress, var stragglers) = state {
            procedure.stragglerIndex = stragglers.count
            stragglers.append(ShutdownReport.Straggler(name: name, behavior: behavior, finished: false))
            state = .cancellingStragglers(progress, stragglers: stragglers)
        }
        let cause = cancelIfDue(&procedure)
        watched[key] = procedure
        return cause.map { .cancel($0) } ?? .registered
    }

    /// A watched procedure finished (or was released without finishing); it is no longer watched.
    mutating func procedureFinished(_ key: Key) -> Action {
        switch state {
        case .running:
            watched[key] = nil
            return .none
        case .shuttingDown(var progress):
            guard let procedure = watched.removeValue(forKey: key) else { return .none }
            progress.finishedDuringGracePeriod.append(procedure.name)
            state = .shuttingDown(progress)
            return finishIfNothingIsLeft()
        case .cancellingStragglers(let progress, var stragglers):
            guard let procedure = watched.removeValue(forKey: key) else { return .none }
            if let index = procedure.stragglerIndex {
                stragglers[index] = ShutdownReport.Straggler(
                    name: procedure.name, behavior: procedure.behavior, finished: true)
            }
            state = .cancellingStragglers(progress, stragglers: stragglers)
            return finishIfNothingIsLeft()
        case .finished:
            return .none
        }
    }

    // MARK: - Events: participants

    /// A participant is added. While running it waits for shutdown; while shutting down it takes its place among
    /// those not stopped yet (and stops now if no stop is in progress); once the grace period has expired, or
    /// after the end, it is stopped at once, already cancelled.
    mutating func addParticipant(_ id: Int, name: String, stopOrder: Int, handle: Handle) -> Action {
        let participant = Participant(
            name: name, stopOrder: stopOrder, sequence: nextParticipantSequence, handle: handle, stage: .waiting)
        nextParticipantSequence += 1
        switch state {
        case .running:
            participants[id] = participant
            return .none
        case .shuttingDown:
            participants[id] = participant
            return beginNextStopIfIdle().map { .notify(Notices(stop: [$0])) } ?? .none
        case .cancellingStragglers:
            participants[id] = participant
            let started = beginEveryWaitingStop()
            return .notify(Notices(stop: started, hurry: started))
        case .finished:
            // Nobody waits for it: it is not kept, and its stop's return is ignored.
            return .notify(Notices(stop: [handle], hurry: [handle]))
        }
    }

    /// A participant is removed. One whose stop has not begun is forgotten; one whose stop is under way stays until
    /// the stop returns.
    mutating func removeParticipant(_ id: Int) -> Action {
        switch state {
        case .running:
            participants[id] = nil
            return .none
        case .shuttingDown, .cancellingStragglers:
            guard case .waiting = participants[id]?.stage else { return .none }
            participants[id] = nil
            // A waiting participant means a stop is in progress, so something is left; checked all the same.
            return finishIfNothingIsLeft()
        case .finished:
            return .none
        }
    }

    /// A participant's stop returned, having thrown `error` or not.
    mutating func participantStopped(_ id: Int, error: (any Error)?) -> Action {
        switch state {
        case .running:
            preconditionFailure("ShutdownStateMachine: participant \(id) stopped in state \(state)")
        case .shuttingDown(var progress):
            guard let participant = participants[id] else { return .none }
            guard case .stopping(let index) = participant.stage else {
                preconditionFailure("ShutdownStateMachine: participant \(id) stopped before its stop began")
            }
            participants[id] = nil
            progress.participantStops[index] = ShutdownReport.ParticipantStop(
                name: participant.name, outcome: Self.outcome(participant.name, error, late: false))
            state = .shuttingDown(progress)
            if let next = beginNextStopIfIdle() { return .notify(Notices(stop: [next])) }
            return finishIfNothingIsLeft()
        case .cancellingStragglers(var progress, let stragglers):
            guard let participant = participants[id] else { return .none }
            guard case .stopping(let index) = participant.stage else {
                preconditionFailure("ShutdownStateMachine: participant \(id) stopped before its stop began")
            }
            participants[id] = nil
            progress.participantStops[index] = ShutdownReport.ParticipantStop(
                name: participant.name, outcome: Self.outcome(participant.name, error, late: true))
            state = .cancellingStragglers(progress, stragglers: stragglers)
            return finishIfNothingIsLeft()
        case .finished:
            return .none  // stopped after the wait ended, or added after it
        }
    }

    // MARK: - Events: requests, signals, timers

    /// Shutdown is requested, with a grace period of its own or (`nil`) the configured one. A request while
    /// shutting down only ever shortens the grace period; later requests do nothing.
    mutating func requestShutdown(_ reason: ShutdownReport.Reason, gracePeriod requested: Duration?) -> Action {
        switch state {
        case .running:
            let signals: Int
            switch reason {
            case .requested, .failure: signals = 0
            case .signal: signals = 1
            }
            state = .shuttingDown(Progress(reason: reason, signalsReceived: signals, finishedDuringGracePeriod: []))
            let listeners = requestListeners.sorted { $0.key < $1.key }.map(\.value)
            requestListeners = [:]
            var notices = Notices(requested: RequestNotice(reason: reason, listeners: listeners))
            guard !watched.isEmpty || !participants.isEmpty else {
                return finish(shutdownBeganNow: true, requested: notices.requested)
            }
            notices.cancel = cancelDue()
            notices.stop = beginNextStopIfIdle().map { [$0] } ?? []
            // Clamped so that the sum cannot overflow `Duration` (each may be up to about 1.7e20 s).
            let grace = (requested ?? gracePeriod).clampedForArithmetic
            return .beginGracePeriod(
                notices, gracePeriod: grace, stopTimeout: grace + cancellationPeriod.clampedForArithmetic)
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
                watched[key]?.stragglerIndex = stragglers.count
                if let procedure = watched[key] {
                    stragglers.append(
                        ShutdownReport.Straggler(name: procedure.name, behavior: procedure.behavior, finished: false))
                }
            }
            state = .cancellingStragglers(progress, stragglers: stragglers)
            // Never empty here: the last procedure or participant to finish while shutting down finishes the machine.
            guard !watched.isEmpty || !participants.isEmpty else { return finish(shutdownBeganNow: false) }
            let inProgress = stoppingHandles()
            let started = beginEveryWaitingStop()
            return .beginCancellationPeriod(
                Notices(cancel: cancelDue(), stop: started, hurry: inProgress + started), period: cancellationPeriod)
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

    // MARK: - Events: listeners and waiters

    /// Someone listens for the request.
    mutating func addRequestListener(_ id: Int, _ listener: Listener) -> RequestListenerAction {
        switch state {
        case .running:
            requestListeners[id] = listener
            return .wait
        case .shuttingDown(let progress), .cancellingStragglers(let progress, _):
            return .notify(listener, progress.reason)
        case .finished(let report):
            return .notify(listener, report.reason)
        }
    }

    /// A request listener stops listening (its scope ended, or its Task was cancelled); returns it unless the
    /// machine already handed it over to be told.
    mutating func removeRequestListener(_ id: Int) -> Listener? {
        requestListeners.removeValue(forKey: id)
    }

    /// Someone waits for the report.
    mutating func addWaiter(_ id: Int, _ waiter: Listener) -> WaiterAction {
        switch state {
        case .finished(let report):
            return .resume(waiter, report)
        case .running, .shuttingDown, .cancellingStragglers:
            waiters[id] = waiter
            return .wait
        }
    }

    /// A waiter gives up (its Task was cancelled); returns it unless the machine already resumed it.
    mutating func removeWaiter(_ id: Int) -> Listener? {
        waiters.removeValue(forKey: id)
    }

    // MARK: - Steps

    /// Finishes when no watched procedure and no participant is left; otherwise does nothing.
    private mutating func finishIfNothingIsLeft() -> Action {
        watched.isEmpty && participants.isEmpty ? finish(shutdownBeganNow: false) : .none
    }

    /// Finishes: builds the report, collects the last cancels and the waiters, and forgets every procedure and
    /// participant (a stop still running is reported as still stopping; it was cancelled when time ran out).
    private mutating func finish(shutdownBeganNow: Bool, requested: RequestNotice? = nil) -> Action {
        let report: ShutdownReport
        switch state {
        case .running, .finished:
            preconditionFailure("ShutdownStateMachine: finishing in state \(state)")
        case .shuttingDown(let progress):
            report = ShutdownReport(
                reason: progress.reason, signalsReceived: progress.signalsReceived,
                finishedDuringGracePeriod: progress.finishedDuringGracePeriod, participants: progress.participantStops)
        case .cancellingStragglers(let progress, let stragglers):
            report = ShutdownReport(
                reason: progress.reason, signalsReceived: progress.signalsReceived,
                finishedDuringGracePeriod: progress.finishedDuringGracePeriod, stragglers: stragglers,
                participants: progress.participantStops)
        }
        let cancel = orderedKeys().compactMap { key -> Cancellation? in
            guard let procedure = watched[key], !procedure.cancelled else { return nil }
            return Cancellation(handle: procedure.handle, cause: .gracePeriodExpired)
        }
        let resumed = waiters.sorted { $0.key < $1.key }.map(\.value)
        watched = [:]
        participants = [:]
        waiters = [:]
        state = .finished(report)
        return .finish(
            Finish(
                report: report, notices: Notices(requested: requested, cancel: cancel), waiters: resumed,
                shutdownBeganNow: shutdownBeganNow))
    }

    /// Marks and returns, in registration order, every watched procedure the current phase says to cancel.
    private mutating func cancelDue() -> [Cancellation] {
        orderedKeys().compactMap { key -> Cancellation? in
            guard var procedure = watched[key], let cause = cancelIfDue(&procedure) else { return nil }
            watched[key] = procedure
            return Cancellation(handle: procedure.handle, cause: cause)
        }
    }

    /// Whether the current phase says to cancel `procedure` now (it has not been yet); marks it cancelled if so.
    private func cancelIfDue(_ procedure: inout WatchedProcedure) -> Cause? {
        guard !procedure.cancelled else { return nil }
        let cause: Cause?
        switch (state, procedure.behavior) {
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
        if cause != nil { procedure.cancelled = true }
        return cause
    }

    /// The watched procedures' keys in the order they registered.
    private func orderedKeys() -> [Key] {
        watched.sorted { $0.value.order < $1.value.order }.map(\.key)
    }

    /// The participants whose stop has not begun, in stop order: ascending stop order, then the most recently
    /// added first.
    private func waitingParticipantIDs() -> [Int] {
        participants.filter {
            if case .waiting = $0.value.stage { true } else { false }
        }
        .sorted {
            ($0.value.stopOrder, -$0.value.sequence) < ($1.value.stopOrder, -$1.value.sequence)
        }
        .map(\.key)
    }

    /// The handles of the participants whose stop is under way, in the order the stops began.
    private func stoppingHandles() -> [Handle] {
        participants.values.compactMap { participant -> (Int, Handle)? in
            guard case .stopping(let index) = participant.stage else { return nil }
            return (index, participant.handle)
        }
        .sorted { $0.0 < $1.0 }.map(\.1)
    }

    /// Begins the stop of the next waiting participant when no stop is under way; returns its handle.
    private mutating func beginNextStopIfIdle() -> Handle? {
        guard stoppingHandles().isEmpty, let next = waitingParticipantIDs().first else { return nil }
        return beginStop(next)
    }

    /// Begins the stop of every waiting participant at once, in stop order; returns their handles.
    private mutating func beginEveryWaitingStop() -> [Handle] {
        waitingParticipantIDs().map { beginStop($0) }
    }

    /// Marks the participant's stop as begun, with a place in the report; returns its handle.
    private mutating func beginStop(_ id: Int) -> Handle {
        guard var participant = participants[id] else {
            preconditionFailure("ShutdownStateMachine: beginning the stop of unknown participant \(id)")
        }
        let stop = ShutdownReport.ParticipantStop(name: participant.name, outcome: .stillStopping)
        let index: Int
        switch state {
        case .shuttingDown(var progress):
            index = progress.participantStops.count
            progress.participantStops.append(stop)
            state = .shuttingDown(progress)
        case .cancellingStragglers(var progress, let stragglers):
            index = progress.participantStops.count
            progress.participantStops.append(stop)
            state = .cancellingStragglers(progress, stragglers: stragglers)
        case .running, .finished:
            preconditionFailure("ShutdownStateMachine: beginning a stop in state \(state)")
        }
        participant.stage = .stopping(reportIndex: index)
        participants[id] = participant
        return participant.handle
    }

    /// How a stop that returned is reported. A stop hurried after the grace period that ends by throwing a
    /// cancellation (the shutdown's own) stopped late; it did not fail.
    private static func outcome(_ name: String, _ error: (any Error)?, late: Bool)
        -> ShutdownReport.ParticipantStop.Outcome
    {
        if late, error is CancellationError { return .stoppedAfterGracePeriod }
        if let error { return .failed(ShutdownReport.Failure(name: name, error: error)) }
        return late ? .stoppedAfterGracePeriod : .stopped
    }
}

// Comparable actions, for the machine's own tests (plain values as handles and listeners).
extension ShutdownStateMachine.Cancellation: Equatable where Handle: Equatable {}
extension ShutdownStateMachine.RequestNotice: Equatable where Listener: Equatable {}
extension ShutdownStateMachine.Notices: Equatable where Handle: Equatable, Listener: Equatable {}
extension ShutdownStateMachine.Finish: Equatable where Handle: Equatable, Listener: Equatable {}
extension ShutdownStateMachine.Action: Equatable where Handle: Equatable, Listener: Equatable {}
extension ShutdownStateMachine.WaiterAction: Equatable where Listener: Equatable {}
extension ShutdownStateMachine.RequestListenerAction: Equatable where Listener: Equatable {}
