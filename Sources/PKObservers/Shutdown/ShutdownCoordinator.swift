import Dispatch
import Foundation
import PKCore

/// Coordinates a process's graceful shutdown: the Linux counterpart of the iOS background-task machinery that
/// ProcedureKit's `BackgroundObserver` drives, and what a server needs to stop its parts in order.
///
/// Three kinds of thing take part in a shutdown:
///
/// - **Watched procedures**, the work in flight, join with a ``BackgroundObserver`` and are cancelled when their
///   ``BackgroundObserver/CancellationBehavior`` says.
/// - **Participants**, the long-lived parts of the program (a server, a consumer, a connection pool), join with
///   ``addParticipant(named:stopOrder:stop:)`` and are stopped one at a time, the most recently added first.
/// - **Handlers** only learn that shutdown was requested, for code that is neither cancelled nor stopped:
///   ``withShutdownHandler(isolation:operation:onShutdownRequested:)`` and ``waitForShutdownRequest()``.
///
/// When shutdown is requested, by a handled signal (see ``handleSignals(_:)-89clc``, which a program must call
/// itself), by ``requestShutdown()``, or by a part of the program that failed and opted in to shutting the rest
/// down, the coordinator:
///
/// 1. tells the handlers; cancels the procedures that asked to stop at once
///    (``BackgroundObserver/CancellationBehavior/whenShutdownRequested``); begins stopping the participants, each
///    stop awaited before the next begins; and starts the **grace period** (``gracePeriod``), during which it
///    waits for every watched procedure to finish and every participant to stop;
/// 2. when the grace period expires, cancels the procedures that asked to stop then
///    (``BackgroundObserver/CancellationBehavior/whenGracePeriodExpires``), cancels the stop in progress, begins
///    every remaining stop at once (already cancelled), and waits for the rest through the **cancellation
///    period** (``cancellationPeriod``);
/// 3. then stops waiting, cancels whatever is still running as a last notice, and hands a ``ShutdownReport`` to
///    every waiter. It finishes as soon as no watched procedure and no participant is left, at any step.
///
/// So a wait ends at most ``gracePeriod`` + ``cancellationPeriod`` after shutdown is requested, whatever the
/// procedures and participants do: one that ignores cancellation is reported, not waited for. Keep that sum below
/// the time your platform allows between `SIGTERM` and `SIGKILL` (Docker 10 s, Kubernetes 30 s, systemd 90 s; see
/// the article *Graceful shutdown on Linux*).
///
/// A program creates its coordinator in `main` and hands it to every part that takes part in the shutdown; a
/// library takes a coordinator as a parameter rather than reaching for ``shared``:
///
/// ```swift
/// let coordinator = ShutdownCoordinator(systemdNotifier: SystemdNotifier())
/// coordinator.handleSignals([SIGTERM, SIGINT])
/// let server = try Server.start(shutdownCoordinator: coordinator)   // a library: adds a participant
/// work.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
/// queue.add(procedure: work)
/// let report = coordinator.syncWaitForShutdown()
/// print(report)
/// ```
///
/// Shutdown happens once per coordinator: requests after the first change nothing, except that a shorter
/// timeout shortens the grace period. Signals count separately: the first handled signal requests shutdown (or
/// changes nothing if the program already did), and each later one moves shutdown on by one phase, so an
/// operator can hurry a slow shutdown.
///
/// Create your own instances in tests too, with a `ManualClock` from PKTesting to drive the periods. Thread-safe:
/// every member may be called from any thread. The coordinator tells handlers, cancels procedures, begins and
/// cancels participants' stops and resumes waiters on the thread that caused the change (the caller, a timer's
/// queue, a thread of its own for a signal, or the Task of a stop that returned), never while holding its lock;
/// each participant's stop runs in a Task of its own. A signal is taken at once even while a cancel hook or a
/// handler that an earlier signal set off is still running, so an operator's second signal always hurries.
public final class ShutdownCoordinator: Sendable {

    /// The process-wide coordinator that ``BackgroundObserver`` uses by default: for a program that does not pass
    /// a coordinator around. Libraries should take one as a parameter instead (see the type's documentation).
    ///
    /// It does not handle any signal until the program calls ``handleSignals(_:)-89clc``. It tells systemd about
    /// the shutdown when `NOTIFY_SOCKET` is set (see ``SystemdNotifier``).
    public static let shared = ShutdownCoordinator(systemdNotifier: SystemdNotifier())

    /// What the machine tells a listener: a request listener hears of the request, a waiter of the report.
    enum ListenerEvent: Sendable {
        case shutdownRequested(ShutdownReport.Reason)
        case shutdownFinished(ShutdownReport)
    }

    /// How a request listener or a report waiter is told.
    typealias Listener = @Sendable (ListenerEvent) -> Void

    /// A watched procedure, held weakly so that the coordinator never keeps one alive.
    struct ProcedureHandle: Sendable {
        let key: ObjectIdentifier
        weak var procedure: Procedure?
        /// Tells this registration from a later one under the same key (a reused address).
        var serial: UInt64 = 0
    }

    /// What the machine cancels or stops: a watched procedure (the machine's `Cancellation`s name only these) or a
    /// participant (its stops and hurries name only these).
    enum Member: Sendable {
        case procedure(ProcedureHandle)
        case participant(ShutdownParticipant)
    }

    typealias Machine = ShutdownStateMachine<ObjectIdentifier, Member, Listener>

    private struct Storage: Sendable {
        var machine: Machine
        /// The timers that report the periods' ends to the machine; cancelled when it finishes.
        var timers: [any ScheduledAction] = []
        /// Numbers the waiters, request listeners and participants.
        var nextID = 0
        var nextHandleSerial: UInt64 = 0
    }

    // The lock is never held while procedures are cancelled, stops begun or cancelled, handlers and waiters told,
    // timers scheduled or systemd told; it is taken after reading a procedure's own state, never while another
    // component's lock is held (a participant's lock is taken only outside it).
    private let storage: PKMutex<Storage>
    private let clock: any ProcedureClock
    private let systemdNotifier: SystemdNotifier?
    private let signalSources = ShutdownSignalSources()

    /// Creates a coordinator: the recommended form for a program, which creates one in `main` and hands it to the
    /// parts and libraries that take part in its shutdown, and for tests.
    ///
    /// A program's coordinator usually tells systemd too: pass `systemdNotifier: SystemdNotifier()`, as
    /// ``shared`` does.
    ///
    /// - Parameters:
    ///   - gracePeriod: How long procedures may run after shutdown is requested before those waiting for it are
    ///     cancelled; a request can set its own (``shutdownGracefully(timeout:)``).
    ///   - cancellationPeriod: How long the coordinator keeps waiting after the grace period.
    ///   - clock: Drives both periods; pass PKTesting's `ManualClock` in tests.
    ///   - systemdNotifier: Where to send `STOPPING=1` and `EXTEND_TIMEOUT_USEC=` when shutdown begins; `nil` (the
    ///     default) sends nothing. ``shared`` uses `SystemdNotifier()`, which reads `NOTIFY_SOCKET`.
    public init(
        gracePeriod: Duration = .seconds(6), cancellationPeriod: Duration = .seconds(2),
        clock: any ProcedureClock = SystemClock(), systemdNotifier: SystemdNotifier? = nil
    ) {
        storage = PKMutex(Storage(machine: Machine(gracePeriod: gracePeriod, cancellationPeriod: cancellationPeriod)))
        self.clock = clock
        self.systemdNotifier = systemdNotifier
    }

    deinit {
        for timer in storage.withLock({ $0.timers }) { timer.cancel() }
    }

    // MARK: - Configuration and state

    /// How long procedures may keep running after shutdown is requested, before those that asked to be
    /// cancelled then are. Defaults to 6 seconds. A change applies to shutdowns requested afterwards.
    public var gracePeriod: Duration {
        get { storage.withLock { $0.machine.gracePeriod } }
        set { storage.withLock { $0.machine.gracePeriod = newValue } }
    }

    /// How long the coordinator keeps waiting after the grace period has expired, before it stops waiting.
    /// Defaults to 2 seconds. A change applies to shutdowns requested afterwards.
    public var cancellationPeriod: Duration {
        get { storage.withLock { $0.machine.cancellationPeriod } }
        set { storage.withLock { $0.machine.cancellationPeriod = newValue } }
    }

    /// The phase shutdown is in.
    public var phase: ShutdownPhase { storage.withLock { $0.machine.phase } }

    /// `true` once shutdown has been requested (by a handled signal or by the program).
    public var isShutdownRequested: Bool { phase != .running }

    /// The number of procedures the coordinator watches now: attached through a ``BackgroundObserver`` and not
    /// finished. Always 0 once the coordinator has finished.
    public var watchedProcedureCount: Int { storage.withLock { $0.machine.watchedCount } }

    /// The number of participants registered and not stopped yet.
    var participantCount: Int { storage.withLock { $0.machine.participantCount } }

    /// The number of handlers and request waits listening for the request.
    var requestListenerCount: Int { storage.withLock { $0.machine.requestListenerCount } }

    // MARK: - Requesting shutdown and waiting for it

    /// Requests shutdown with the configured ``gracePeriod``, and returns at once.
    ///
    /// Procedures that asked to be cancelled when shutdown is requested are cancelled before this returns (their
    /// cancellation itself runs in their own event context). Calling it again, or after a signal started
    /// shutdown, does nothing.
    public func requestShutdown() {
        request(.requested, gracePeriod: nil)
    }

    /// Requests shutdown (if it was not requested yet) and suspends until the coordinator stops waiting.
    ///
    /// - Parameter timeout: The grace period: how long procedures may keep running before the rest are
    ///   cancelled. `nil` uses ``gracePeriod``. When shutdown is already under way, a timeout ending sooner than
    ///   its grace period shortens it; one ending later changes nothing.
    /// - Returns: The report, at most `timeout` + ``cancellationPeriod`` after the call.
    /// - Throws: `CancellationError` when the calling Task is cancelled; shutdown itself goes on.
    public func shutdownGracefully(timeout: Duration? = nil) async throws -> ShutdownReport {
        request(.requested, gracePeriod: timeout)
        return try await waitForShutdown()
    }

    /// Requests shutdown (if it was not requested yet) and blocks the calling thread until the coordinator stops
    /// waiting: ``shutdownGracefully(timeout:)`` for a synchronous `main.swift`.
    @available(*, noasync, message: "blocks its thread; use shutdownGracefully(timeout:) in async code")
    public func syncShutdownGracefully(timeout: Duration? = nil) -> ShutdownReport {
        request(.requested, gracePeriod: timeout)
        return syncWaitForShutdown()
    }

    /// Suspends until shutdown has been requested (by a signal or the program) and the coordinator has stopped
    /// waiting; returns the report at once when that has already happened.
    ///
    /// Before the request there is no bound: a service waits here for its `SIGTERM`.
    ///
    /// - Throws: `CancellationError` when the calling Task is cancelled; shutdown itself is unaffected.
    public func waitForShutdown() async throws -> ShutdownReport {
        let gate = ShutdownGate<ShutdownReport>()
        let id = nextID()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                gate.install(continuation)
                addWaiter(id) { event in
                    if case .shutdownFinished(let report) = event { gate.resolve(.success(report)) }
                }
                if Task.isCancelled { removeWaiter(id, gate) }
            }
        } onCancel: {
            removeWaiter(id, gate)
        }
    }

    /// Blocks the calling thread until shutdown has been requested and the coordinator has stopped waiting:
    /// ``waitForShutdown()`` for a synchronous `main.swift`.
    @available(*, noasync, message: "blocks its thread; use waitForShutdown() in async code")
    public func syncWaitForShutdown() -> ShutdownReport {
        let latch = ShutdownReportLatch()
        addWaiter(nextID()) { event in
            if case .shutdownFinished(let report) = event { latch.resolve(report) }
        }
        return latch.wait()
    }

    /// Requests shutdown because a part of the program failed (a ``ShutdownParticipant`` or a procedure whose
    /// ``BackgroundObserver`` opted in); does nothing when shutdown was already requested.
    func requestShutdown(dueTo failure: ShutdownReport.Failure) {
        request(.failure(failure), gracePeriod: nil)
    }

    // MARK: - Procedures (BackgroundObserver)

    /// Starts watching `procedure`, or cancels it at once when its moment to be cancelled has passed.
    func register(_ procedure: Procedure, behavior: BackgroundObserver.CancellationBehavior) {
        let key = ObjectIdentifier(procedure)
        let name = procedure.procedureName
        var handle = ProcedureHandle(key: key, procedure: procedure)
        let (released, action) = storage.withLock { storage -> (Machine.Action, Machine.RegisterAction) in
            storage.nextHandleSerial += 1
            handle.serial = storage.nextHandleSerial
            // An entry under this key whose procedure is gone belongs to a procedure released without finishing,
            // whose address is now reused: forget it before registering the new one.
            var released = Machine.Action.none
            if case .procedure(let existing) = storage.machine.watchedHandle(for: key), existing.procedure == nil {
                released = storage.machine.procedureFinished(key)
            }
            return (
                released,
                storage.machine.register(key, name: name, behavior: behavior, handle: .procedure(handle))
            )
        }
        perform(released)
        switch action {
        case .registered:
            break
        case .cancel(let cause):
            procedure.cancel(with: cause.error)
        case .duplicate(let cause):
            procedure.log.warning(
                "\(name) already has a BackgroundObserver for this ShutdownCoordinator; the earlier-cancelling "
                    + "behaviour of the two applies")
            if let cause { procedure.cancel(with: cause.error) }
        }
    }

    /// Stops watching `procedure`, which has finished.
    func procedureDidFinish(_ procedure: Procedure) {
        let key = ObjectIdentifier(procedure)
        perform(storage.withLock { $0.machine.procedureFinished(key) })
    }

    // MARK: - Participants and request listeners

    /// Registers a new participant; the machine may say to stop it at once (shutdown is under way).
    func register(_ participant: ShutdownParticipant) {
        afterForgettingReleasedProcedures {
            $0.addParticipant(
                participant.id, name: participant.name, stopOrder: participant.stopOrder,
                handle: .participant(participant))
        }
    }

    /// Removes a participant whose stop has not begun.
    func removeParticipant(_ id: Int) {
        afterForgettingReleasedProcedures { $0.removeParticipant(id) }
    }

    /// A participant's stop returned.
    func participantDidStop(_ id: Int, error: (any Error)?) {
        afterForgettingReleasedProcedures { $0.participantStopped(id, error: error) }
    }

    /// Adds a listener for the request under `id` (from ``nextID()``), or tells it at once, on this thread, when
    /// shutdown was requested already.
    func addRequestListener(_ id: Int, _ listener: @escaping Listener) {
        switch storage.withLock({ $0.machine.addRequestListener(id, listener) }) {
        case .wait: break
        case .notify(let listener, let reason): listener(.shutdownRequested(reason))
        }
    }

    /// Removes a request listener; returns whether it was still waiting (it has not been, and will not be, told).
    @discardableResult
    func removeRequestListener(_ id: Int) -> Bool {
        storage.withLock { $0.machine.removeRequestListener(id) } != nil
    }

    /// A fresh number for a waiter, listener or participant.
    func nextID() -> Int {
        storage.withLock { storage in
            defer { storage.nextID += 1 }
            return storage.nextID
        }
    }

    // MARK: - Signals

    /// The signals this coordinator listens to, in ascending order.
    public var handledSignals: [Int32] { signalSources.signals }

    /// Listens to `signals`; each delivery is a ``ShutdownStateMachine/signalReceived(_:)`` event. `false`, with a
    /// warning, when the sources were not registered within the timeout.
    @discardableResult
    func listen(to signals: [Int32], registrationTimeout: Double = 5) -> Bool {
        let registered = signalSources.listen(to: signals, registrationTimeout: registrationTimeout) {
            [weak self] signal in
            self?.receive(signal: signal)
        }
        if !registered {
            Self.warn("the signal sources for \(signals) were not registered within \(registrationTimeout) s")
        }
        return registered
    }

    /// A handled signal arrived: the machine takes it here, on the signal queue, and what it says (handlers,
    /// cancels, whose hooks are user code that may block) is done on a thread of its own. Done on the signal queue,
    /// a blocking cancel hook held back the operator's next signal, the one that hurries shutdown on.
    func receive(signal: Int32) {
        let action = storage.withLock { $0.machine.signalReceived(signal) }
        if case .none = action { return }
        DispatchQueue(label: "PKObservers.ShutdownCoordinator.signalAction").async { self.perform(action) }
    }

    // MARK: - Performing the machine's actions

    private func request(_ reason: ShutdownReport.Reason, gracePeriod: Duration?) {
        afterForgettingReleasedProcedures { $0.requestShutdown(reason, gracePeriod: gracePeriod) }
    }

    private func gracePeriodDidExpire() {
        afterForgettingReleasedProcedures { $0.gracePeriodExpired() }
    }

    private func cancellationPeriodDidEnd() {
        afterForgettingReleasedProcedures { $0.cancellationPeriodExpired() }
    }

    /// Gives the machine `event`, after treating the procedures released without finishing as finished (so that
    /// they do not hold shutdown open), and performs what it says.
    private func afterForgettingReleasedProcedures(_ event: (inout Machine) -> Machine.Action) {
        let released = releasedProcedures()
        let actions = storage.withLock { storage in
            Self.forget(released, in: &storage.machine) + [event(&storage.machine)]
        }
        for action in actions { perform(action) }
    }

    /// The watched procedures that were released without finishing (never enqueued, say), found outside the lock:
    /// loading a weak reference makes a strong one, whose release may be the procedure's last and run its deinit
    /// (and the deinits of the user objects it frees). The lock only copies the handles, which loads nothing.
    private func releasedProcedures() -> [(key: ObjectIdentifier, serial: UInt64)] {
        let handles = storage.withLock { $0.machine.watchedHandles }
        return handles.compactMap { entry -> (key: ObjectIdentifier, serial: UInt64)? in
            guard case .procedure(let handle) = entry.handle, handle.procedure == nil else { return nil }
            return (entry.key, handle.serial)
        }
    }

    /// Treats `released` procedures as finished, so they do not hold shutdown open; under the lock. A key registered
    /// again since (a reused address) has another serial and is kept.
    private static func forget(_ released: [(key: ObjectIdentifier, serial: UInt64)], in machine: inout Machine)
        -> [Machine.Action]
    {
        guard !released.isEmpty else { return [] }
        let serials = Dictionary(
            machine.watchedHandles.compactMap { entry -> (ObjectIdentifier, UInt64)? in
                guard case .procedure(let handle) = entry.handle else { return nil }
                return (entry.key, handle.serial)
            }
        ) { first, _ in first }
        return released.filter { serials[$0.key] == $0.serial }.map { machine.procedureFinished($0.key) }
    }

    private func addWaiter(_ id: Int, _ waiter: @escaping Listener) {
        switch storage.withLock({ $0.machine.addWaiter(id, waiter) }) {
        case .wait: break
        case .resume(let waiter, let report): waiter(.shutdownFinished(report))
        }
    }

    private func removeWaiter(_ id: Int, _ gate: ShutdownGate<ShutdownReport>) {
        gate.resolve(.failure(CancellationError()))
        _ = storage.withLock { $0.machine.removeWaiter(id) }
    }

    private func perform(_ action: Machine.Action) {
        switch action {
        case .none:
            break
        case .beginGracePeriod(let notices, let gracePeriod, let stopTimeout):
            // A second more than the wait, for the program to print its report and exit.
            notifySystemd(stoppingWithin: stopTimeout + .seconds(1))
            schedule(after: gracePeriod) { $0.gracePeriodDidExpire() }
            tell(notices)
        case .shortenGracePeriod(let gracePeriod):
            schedule(after: gracePeriod) { $0.gracePeriodDidExpire() }
        case .beginCancellationPeriod(let notices, let period):
            schedule(after: period) { $0.cancellationPeriodDidEnd() }
            tell(notices)
        case .notify(let notices):
            tell(notices)
        case .finish(let finish):
            if finish.shutdownBeganNow { notifySystemd(stoppingWithin: nil) }
            let timers = storage.withLock { storage in
                defer { storage.timers = [] }
                return storage.timers
            }
            for timer in timers { timer.cancel() }
            // Handlers and last cancels before the waiters: a waiter may be a main thread about to exit.
            tell(finish.notices)
            for waiter in finish.waiters { waiter(.shutdownFinished(finish.report)) }
        }
    }

    /// Does what `notices` say: handlers, cancels, then stops hurried, then stops begun (hurried first, so that a
    /// stop both begun and hurried now begins already cancelled).
    private func tell(_ notices: Machine.Notices) {
        if let requested = notices.requested {
            for listener in requested.listeners { listener(.shutdownRequested(requested.reason)) }
        }
        cancel(notices.cancel)
        for member in notices.hurry {
            guard case .participant(let participant) = member else {
                preconditionFailure("ShutdownCoordinator: asked to hurry a procedure: \(member)")
            }
            participant.hurry()
        }
        for member in notices.stop {
            guard case .participant(let participant) = member else {
                preconditionFailure("ShutdownCoordinator: asked to stop a procedure: \(member)")
            }
            participant.beginStop(reportingTo: self)
        }
    }

    private func cancel(_ cancellations: [Machine.Cancellation]) {
        var released: [ObjectIdentifier] = []
        for cancellation in cancellations {
            guard case .procedure(let handle) = cancellation.handle else {
                preconditionFailure("ShutdownCoordinator: asked to cancel a participant: \(cancellation.handle)")
            }
            if let procedure = handle.procedure {
                procedure.cancel(with: cancellation.cause.error)
            } else {
                released.append(handle.key)
            }
        }
        for key in released {
            perform(storage.withLock { $0.machine.procedureFinished(key) })
        }
    }

    private func schedule(after delay: Duration, _ body: @escaping @Sendable (ShutdownCoordinator) -> Void) {
        let timer = clock.schedule(after: delay) { [weak self] in
            if let self { body(self) }
        }
        let kept = storage.withLock { storage -> Bool in
            guard storage.machine.phase != .finished else { return false }
            storage.timers.append(timer)
            return true
        }
        if !kept { timer.cancel() }
    }

    private func notifySystemd(stoppingWithin timeout: Duration?) {
        guard let systemdNotifier else { return }
        do {
            try systemdNotifier.notifyStopping(within: timeout)
        } catch {
            Self.warn("could not tell systemd about the shutdown at \(systemdNotifier.socketPath): \(error)")
        }
    }

    /// Writes a warning that belongs to no procedure through the global log settings.
    private static func warn(
        _ message: String, file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        Log.write(.warning, message, subsystem: "ShutdownCoordinator", file: file, function: function, line: line)
    }
}

extension ShutdownStateMachine.Cause {
    /// The error a procedure cancelled for this cause carries.
    var error: ProcedureKitError {
        switch self {
        case .shutdownRequested: .shutdownRequested()
        case .gracePeriodExpired: .shutdownGracePeriodExpired()
        }
    }
}
