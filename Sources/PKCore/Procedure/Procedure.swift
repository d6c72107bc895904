import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A unit of work: subclass it, override ``execute()``, and call ``finish()`` when the work is done.
///
/// `Procedure` is a `Foundation.Operation`, so any operation can be its dependency. Add procedures to a
/// ``ProcedureQueue``, which starts each one when its dependencies have finished.
///
/// ```swift
/// class MyFirstProcedure: Procedure, @unchecked Sendable {
///     override func execute() {
///         print("Hello World")
///         finish()
///     }
/// }
///
/// let queue = ProcedureQueue()
/// queue.add(procedure: MyFirstProcedure())
/// ```
///
/// Thread safety: every public member may be called from any thread. One procedure's events (`execute()`, its
/// overrides and its observers) never run concurrently with each other. Errors accumulate in ``errors``: cancel
/// and finish errors are appended in the order they were accepted.
///
/// Cancellation: cancelled before it executes, a procedure skips `execute()` and finishes by itself once its
/// queue starts it. Cancelled while executing, nothing interrupts `execute()`; override
/// ``procedureDidCancel(withErrors:)`` or add a DidCancel observer to stop the work and call `finish()`.
///
/// Subclasses restate `@unchecked Sendable`, as every `Operation` subclass must in Swift 6.
open class Procedure: Operation, ProcedureProtocol, @unchecked Sendable {
    // @unchecked Sendable: every mutable field of the procedure lives in `storage`, guarded by its Mutex.
    // Foundation's own Operation fields are only touched through Foundation's own locked accessors.

    final let storage: PKMutex<ProcedureStorage>

    /// The procedure's slot in its queue's member list; read and written only under that queue's mutex.
    final var queueIndex = -1

    /// Creates a procedure.
    public override init() {
        storage = PKMutex(ProcedureStorage(automaticFinishingDisabled: false))
        super.init()
    }

    /// Creates a procedure that never finishes by itself when `disableAutomaticFinishing` is `true`.
    ///
    /// Such a procedure's `execute()` runs even when it was cancelled before starting, and its code must call
    /// `finish()` on every path.
    public init(disableAutomaticFinishing: Bool) {
        storage = PKMutex(ProcedureStorage(automaticFinishingDisabled: disableAutomaticFinishing))
        super.init()
    }

    // MARK: - Override points

    /// The work. Override it, do not call `super`, and call `finish()` when done (possibly later, from any
    /// thread). Runs in the procedure's serial event context; never concurrently with its observers.
    open func execute() {
        log.warning("\(procedureName) did not override execute(); finishing.")
        finish()
    }

    /// Called after a cancel is accepted, before the DidCancel observers. The default does nothing.
    open func procedureDidCancel(withErrors errors: [any Error]) {}

    /// Called when the procedure starts finishing, before the WillFinish observers. The default does nothing.
    open func procedureWillFinish(withErrors errors: [any Error]) {}

    /// Called after the procedure finished, before the DidFinish observers. The default does nothing.
    open func procedureDidFinish(withErrors errors: [any Error]) {}

    /// A synchronous hook run on the cancelling thread right after a cancel is accepted; used by framework
    /// subclasses (async procedures cancel their Task here).
    func procedureWasCancelled(withErrors errors: [any Error]) {}

    /// Whether a `finish` call may go ahead; a group refuses every finish but its own.
    func acceptsFinish() -> Bool { true }

    /// A hook run once the procedure is finished, before ``procedureDidFinish(withErrors:)``; framework
    /// subclasses release what they held for the run here (a block procedure's timeout, say).
    func procedureIsFinished() {}

    // MARK: - Status

    /// The procedure's name; defaults to the type name.
    open override var name: String? {
        get { storage.withLock { $0.name } ?? TypeNames.name(of: type(of: self)) }
        set { storage.withLock { $0.name = newValue } }
    }

    /// The name, never `nil`.
    public final var procedureName: String { name ?? TypeNames.name(of: type(of: self)) }

    /// `true` once `cancel` was accepted.
    public final override var isCancelled: Bool { storage.withLock { $0.machine.isCancelled } }

    /// `true` while `execute()` may be running (from just before it is called until finishing begins).
    public final override var isExecuting: Bool { storage.withLock { $0.machine.state == .executing } }

    /// `true` once the procedure has finished.
    public final override var isFinished: Bool { storage.withLock { $0.machine.state == .finished } }

    /// `true` while the procedure is on a queue and has not started.
    public final var isPending: Bool { storage.withLock { $0.machine.state == .pending } }

    /// `true` once the procedure has been added to a queue.
    public final var isEnqueued: Bool { storage.withLock { $0.machine.state >= .pending } }

    /// Procedures finish asynchronously.
    public final override var isAsynchronous: Bool { true }

    /// `true` when a queue could start the procedure now.
    ///
    /// A procedure not on a ``ProcedureQueue`` always reports `true`, so that a plain `OperationQueue` starts it
    /// rather than waiting forever (a plain queue cannot see its dependencies); ``start()`` then runs it, or
    /// cancels it with a clear error when a dependency has not finished.
    public final override var isReady: Bool {
        storage.withLock {
            $0.machine.state == .initialized || $0.readiness == .ready || $0.machine.isCancelled
        }
    }

    /// Every error from cancelling and finishing, in the order they were accepted.
    public final var errors: [any Error] { storage.withLock { $0.machine.errors } }

    /// The first error, if any.
    public final var error: (any Error)? { storage.withLock { $0.machine.errors.first } }

    /// `true` when ``errors`` is not empty.
    public final var failed: Bool { storage.withLock { !$0.machine.errors.isEmpty } }

    /// Where the procedure is, and how it ended.
    public final var status: ProcedureStatus {
        let (state, cancelled, failed) = storage.withLock {
            ($0.machine.state, $0.machine.isCancelled, !$0.machine.errors.isEmpty)
        }
        switch state {
        case .finished:
            if cancelled { return .cancelled }
            return failed ? .failed : .finished
        case .executing, .finishing:
            return cancelled ? .cancelled : .executing
        case .initialized, .willEnqueue, .pending, .started:
            return cancelled ? .cancelled : .pending
        }
    }

    /// The procedure's log. See ``ProcedureLog``.
    public final var log: ProcedureLog { ProcedureLog(owner: self) }

    var logSettings: ProcedureLogSettings { storage.withLock { $0.logSettings } ?? ProcedureLogSettings() }

    func updateLogSettings(_ update: (inout ProcedureLogSettings) -> Void) {
        storage.withLock {
            var settings = $0.logSettings ?? ProcedureLogSettings()
            update(&settings)
            $0.logSettings = settings
        }
    }

    /// `<name> #<address>`.
    open override var description: String {
        "\(procedureName) #\(String(UInt(bitPattern: ObjectIdentifier(self).hashValue), radix: 16))"
    }

    // MARK: - Finishing

    /// Finishes the procedure without errors. See ``finish(withErrors:)``.
    public final func finish() {
        finish(withErrors: [])
    }

    /// Finishes the procedure with `error`, if not `nil`. See ``finish(withErrors:)``.
    public final func finish(with error: (any Error)?) {
        finish(withErrors: error.map { [$0] } ?? [])
    }

    /// Finishes the procedure, appending `errors` to ``errors``.
    ///
    /// Callable from any thread, including from inside `execute()`; the finishing work runs after the current
    /// event (for example after `execute()` returns). The first accepted finish wins; later calls are ignored
    /// with a warning. Before the procedure starts, finishing is allowed only once it is cancelled, and is then
    /// carried out when its queue starts it.
    public final func finish(withErrors errors: [any Error]) {
        guard acceptsFinish() else {
            log.warning("finish() called on \(procedureName), which finishes by itself; ignored")
            return
        }
        var drainNow = false
        let action = storage.withLock { storage -> ProcedureStateMachine.FinishAction in
            let action = storage.machine.finish(errors: errors)
            if case .beginFinishing = action { drainNow = storage.loop.accept(.beginFinishing) }
            return action
        }
        switch action {
        case .beginFinishing:
            if drainNow { drain(startingWith: .beginFinishing) }
        case .deferUntilStart:
            log.verbose("finish requested before start; it happens when the queue starts the procedure")
        case .rejectNotStarted(let state):
            log.warning(
                "finish() called on \(procedureName) in state \(state), before it started and without being "
                    + "cancelled; ignored")
        case .ignoreDuplicate(let state):
            // A cancelled procedure's DidCancel handler and its own work commonly race to finish: not a warning.
            let severity: LogSeverity = isCancelled ? .verbose : .warning
            log.write(
                severity, { "finish() called again on \(self.procedureName) in state \(state); ignored" },
                file: #fileID, function: #function, line: #line)
        }
    }

    // MARK: - Cancelling

    /// Cancels the procedure without errors. See ``cancel(withErrors:)``.
    public final override func cancel() {
        cancel(withErrors: [])
    }

    /// Cancels the procedure with `error`, if not `nil`. See ``cancel(withErrors:)``.
    public final func cancel(with error: (any Error)?) {
        cancel(withErrors: error.map { [$0] } ?? [])
    }

    /// Cancels the procedure, appending `errors` to ``errors``.
    ///
    /// `isCancelled` is `true` when this returns. ``procedureDidCancel(withErrors:)`` and then the DidCancel
    /// observers run in the procedure's event context, after any event in progress (so after `execute()` if it
    /// is running). Ignored once the procedure is cancelled, finishing or finished.
    public final func cancel(withErrors errors: [any Error]) {
        if cancel(withErrors: errors, becomeReady: true) == false, !errors.isEmpty {
            log.verbose("cancel(withErrors: \(errors)) ignored: already cancelled or finishing")
        }
    }

    /// Cancels; when `becomeReady` is false a procedure waiting in its queue stays waiting until
    /// ``becomeReadyIfWaiting()`` (used to cancel every member of a dependency cycle before any of them runs).
    /// Returns whether the cancel was accepted.
    @discardableResult
    final func cancel(withErrors errors: [any Error], becomeReady: Bool) -> Bool {
        guard let accepted = acceptCancel(withErrors: errors) else { return false }
        completeCancel(accepted, becomeReady: becomeReady)
        return true
    }

    /// A cancel accepted by ``acceptCancel(withErrors:)`` whose work (the synchronous hook, becoming ready, the
    /// DidCancel event) is still to be done by ``completeCancel(_:becomeReady:)``.
    struct AcceptedCancel {
        let errors: [any Error]
        let wasPending: Bool
        /// This thread holds the procedure's event context and must drain it.
        let drainNow: Bool
    }

    /// The first step of a cancel: `isCancelled` is `true` when this returns, but nothing has reacted yet. Used to
    /// cancel several procedures at once (a group's children) so that none of them reacts, finishing and releasing
    /// a sibling that depends on it, before all are cancelled. `nil` when the cancel is ignored.
    final func acceptCancel(withErrors errors: [any Error]) -> AcceptedCancel? {
        var drainNow = false
        let action = storage.withLock { storage -> ProcedureStateMachine.CancelAction in
            let action = storage.machine.cancel(errors: errors)
            if case .didCancel = action { drainNow = storage.loop.accept(.didCancel(errors)) }
            return action
        }
        guard case .didCancel(let wasPending) = action else { return nil }
        return AcceptedCancel(errors: errors, wasPending: wasPending, drainNow: drainNow)
    }

    /// The second step of a cancel, on the thread that accepted it.
    final func completeCancel(_ accepted: AcceptedCancel, becomeReady: Bool) {
        if accepted.drainNow {
            // This thread now holds the event context (its DidCancel work runs below), so the synchronous hook
            // counts as running inside it: a child finishing inline may `synchronize` with this procedure.
            DrainingProcedures.withDraining(self) { procedureWasCancelled(withErrors: accepted.errors) }
        } else {
            procedureWasCancelled(withErrors: accepted.errors)
        }
        if accepted.wasPending && becomeReady { becomeReadyIfWaiting() }
        if accepted.drainNow { drain(startingWith: .didCancel(accepted.errors)) }
    }

    // MARK: - Starting

    /// Called by the queue. Do not call it yourself.
    ///
    /// A procedure started by something other than a ``ProcedureQueue`` (a plain `OperationQueue`, or a direct
    /// call) runs if all of its dependencies have finished, with a warning; otherwise it is cancelled with
    /// ``ProcedureKitError/Context/notStartedByProcedureQueue`` and finishes without executing.
    public final override func start() {
        // The usual case (started by its ProcedureQueue) submits `.start` in the same critical section. A procedure
        // whose conditions named mutually exclusive categories asks for them first, now that it holds a slot.
        enum Next {
            case adopted
            case submit(drainNow: Bool)
            case requestLocks(ExclusivityRequest)
        }
        let next = storage.withLock { storage -> Next in
            if storage.machine.adoptWithoutQueue() { return .adopted }
            if let request = storage.makeExclusivityRequest() { return .requestLocks(request) }
            return .submit(drainNow: storage.loop.accept(.start))
        }
        switch next {
        case .submit(let drainNow):
            if drainNow { drain(startingWith: .start) }
        case .requestLocks(let request):
            requestLocks(request)
        case .adopted:
            log.warning(
                "\(procedureName) was started without a ProcedureQueue; conditions and queue features do not apply")
            let dependencies = storage.withLock { $0.dependencies }
            if !dependencies.allSatisfy(\.isFinished) {
                cancel(with: ProcedureKitError(context: .notStartedByProcedureQueue))
            }
            submit(.start)
        }
    }

    /// Does nothing: a procedure's work is ``execute()``.
    public final override func main() {}

    // MARK: - Event context

    /// Runs `event` now (becoming the drainer) or queues it behind the event in progress.
    final func submit(_ event: ProcedureEvent) {
        if storage.withLock({ $0.loop.accept(event) }) {
            drain(startingWith: event)
        }
    }

    /// Runs `event`, then every queued event, until none are left or the context is blocked.
    private final func drain(startingWith event: ProcedureEvent) {
        DrainingProcedures.withDraining(self) {
            var next: ProcedureEvent? = event
            while let event = next {
                process(event)
                next = storage.withLock { $0.loop.next() }
            }
        }
    }

    /// Runs a "will" phase: each observer gets the same pending-event token. If every reference is released
    /// during the phase, `continuation` runs at once, inline; otherwise it is queued when the last reference
    /// goes, behind whatever arrived meanwhile. Other events are not held up by an outstanding token.
    private final func runWillPhase(
        _ kind: PendingEvent.Kind, continuation: ProcedureEvent, deliver: (PendingEvent) -> Void
    ) {
        do {
            let token = PendingEvent(kind: kind, procedure: self, continuation: continuation)
            storage.withLock { $0.willPhase = .delivering(ObjectIdentifier(token)) }
            deliver(token)
        }
        let releasedInPhase = storage.withLock { storage -> Bool in
            defer { storage.willPhase = .idle }
            return storage.willPhase == .releasedDuringDelivery
        }
        if releasedInPhase { process(continuation) }
    }

    /// Called as a pending-event token's last reference goes: during its phase, the phase continues inline;
    /// afterwards the continuation is submitted from here.
    final func pendingEventReleased(_ token: ObjectIdentifier, continuation: ProcedureEvent) {
        let inPhase = storage.withLock { storage -> Bool in
            guard storage.willPhase == .delivering(token) else { return false }
            storage.willPhase = .releasedDuringDelivery
            return true
        }
        if !inPhase { submit(continuation) }
    }

    private final func process(_ event: ProcedureEvent) {
        switch event {
        case .attach(let observer): processAttach(observer)
        case .start: processStart()
        case .willExecuteDone: processWillExecuteDone()
        case .didCancel(let errors): processDidCancel(errors)
        case .beginFinishing: processBeginFinishing()
        case .willFinishDone: processWillFinishDone()
        case .produce(let operation, let before, let target): processProduce(operation, before: before, to: target)
        case .addProduced(let operation, let before, let target):
            processAddProduced(operation, before: before, to: target)
        case .executeNow: runExecute(observers: storage.withLock { $0.observers })
        case .run(let body): body()
        }
    }

    private final func processAttach(_ observer: AnyProcedureObserver) {
        let finishedErrors = storage.withLock { storage -> [any Error]? in
            if storage.machine.state == .finished { return storage.machine.errors }
            storage.observers.append(observer)
            return nil
        }
        observer.send(.didAttach, to: self)
        if let finishedErrors {
            // Attached after finishing: the observer is told at once and not kept.
            observer.send(.didFinish(finishedErrors), to: self)
        }
    }

    private final func processStart() {
        let (action, observers) = storage.withLock { ($0.machine.start(), $0.observers) }
        switch action {
        case .runWillExecute:
            if observers.wants(.willExecute) {
                runWillPhase(.execute, continuation: .willExecuteDone) { token in
                    observers.send(.willExecute(token), to: self)
                }
            } else {
                processWillExecuteDone()
            }
        case .finish:
            // Cancelled (or finished) before starting. A cancel that landed just before this event may still
            // have its DidCancel work queued: finishing is queued behind it, so DidCancel observers come first.
            submit(.beginFinishing)
        case .ignore(let state):
            log.warning("start() called on \(procedureName) in state \(state); ignored")
        case .notEnqueued:
            log.warning("start() called on \(procedureName) while it is being enqueued; ignored")
        }
    }

    private final func processWillExecuteDone() {
        let (action, queueRef, observers) = storage.withLock {
            ($0.machine.willExecuteObserversDidFinish(), $0.queueRef, $0.observers)
        }
        switch action {
        case .execute: runExecuteOnQueue(queueRef, observers: observers)
        case .finish:
            // Cancelled during the WillExecute phase: its DidCancel work is queued behind this continuation, so
            // the automatic finish is queued too, after it.
            submit(.beginFinishing)
        case .none: break
        }
    }

    /// Runs `execute()` here, or, when the queue has an `underlyingQueue` and this thread is not on it (another
    /// thread was draining this procedure's events when the queue started it), hops there first.
    private final func runExecuteOnQueue(_ queueRef: Unmanaged<ProcedureQueue>?, observers: ObserverList) {
        guard let target = queueRef?._withUnsafeGuaranteedRef({ $0.underlyingQueueToHopTo() }) else {
            runExecute(observers: observers)
            return
        }
        storage.withLock { $0.loop.block() }
        target.async { [self] in
            // The context is blocked, so the thread that was draining stops at its next step; take over then.
            while true {
                if let first = storage.withLock({ $0.loop.resumeExclusively(with: .executeNow) }) {
                    drain(startingWith: first)
                    return
                }
                sched_yield()
            }
        }
    }

    /// Runs `execute()`, then the DidExecute observers. `observers` are the procedure's observers as this event
    /// began: no other event runs until it ends, so an observer added meanwhile is attached afterwards.
    private final func runExecute(observers: ObserverList) {
        execute()
        if observers.wants(.didExecute) { observers.send(.didExecute, to: self) }
    }

    private final func processDidCancel(_ errors: [any Error]) {
        procedureDidCancel(withErrors: errors)
        let observers = storage.withLock { $0.observers }
        if observers.wants(.didCancel) { observers.send(.didCancel(errors), to: self) }
    }

    private final func processBeginFinishing() {
        let (errors, observers, queueRef) = storage.withLock {
            ($0.machine.beginFinishing(), $0.observers, $0.queueRef)
        }
        procedureWillFinish(withErrors: errors)
        if observers.wants(.willFinish) {
            runWillPhase(.finish, continuation: .willFinishDone) { token in
                observers.send(.willFinish(errors, token), to: self)
            }
        } else {
            queueRef?._withUnsafeGuaranteedRef { $0.procedureWillFinish(self, withErrors: errors) }
            completeFinishing()
        }
    }

    /// The WillFinish observers are done: the queue hears that the procedure will finish (after them, as
    /// ProcedureKit's queue, whose own WillFinish observer was attached when the procedure was enqueued, did; a
    /// group takes its children's errors, and a retry its next attempt, there), then the procedure finishes.
    private final func processWillFinishDone() {
        let (queueRef, errors) = storage.withLock { ($0.queueRef, $0.machine.errors) }
        queueRef?._withUnsafeGuaranteedRef { $0.procedureWillFinish(self, withErrors: errors) }
        completeFinishing()
    }

    private final func completeFinishing() {
        // Everything let go of here is moved out and released after the lock: a release can run user code (a
        // condition's or a captured object's deinit), which must never run under the procedure's lock.
        let (errors, dependents, queueRef, observers, dependencies, exclusive, released) = storage.withLock { storage in
            let errors = storage.machine.completeFinishing()
            let dependents = storage.dependents
            storage.dependents = SmallList()
            let queueRef = storage.queueRef
            storage.queueRef = nil
            let dependencies = storage.dependencies
            storage.dependencies = SmallList()
            let released = (storage.conditions, storage.producer)
            storage.conditions = []
            storage.producer = nil
            let exclusive = storage.exclusivity.takeTicket()
            return (errors, dependents, queueRef, storage.observers, dependencies, exclusive, released)
        }
        withExtendedLifetime(released) {}
        WorkerLoop.procedureIsFinishing(self)
        // Foundation's own bookkeeping: waitUntilFinished(), completionBlock, plain operations depending on us.
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isFinished")
        for dependent in dependents { dependent.dependencyDidFinish() }
        releaseIteratively(dependencies)
        procedureIsFinished()
        procedureDidFinish(withErrors: errors)
        if let exclusive { ExclusivityManager.shared.release(exclusive) }
        if observers.wants(.didFinish) { observers.send(.didFinish(errors), to: self) }
        let (waiters, attached) = storage.withLock { storage -> (FinishWaiters, ObserverList) in
            let attached = storage.observers
            storage.observers = ObserverList()
            return (storage.finishWaiters.close(), attached)
        }
        withExtendedLifetime(attached) {}  // released here, outside the lock
        waiters.resumeAll()
        if errors.isEmpty {
            log.verbose("did finish without errors")
        } else {
            log.verbose("did finish with \(errors.count) error(s): \(errors)")
        }
        // The queue stays alive until this procedure is settled on it; if that leaves it idle, it gives back its
        // reference to itself, after the call has returned.
        if let queueRef, queueRef._withUnsafeGuaranteedRef({ $0.procedureDidFinish(self, withErrors: errors) }) {
            queueRef.release()
        }
    }

    /// Drops a list of operations without recursing down long chains of unstarted procedures: a procedure that
    /// only this list references hands its own dependencies to the list before it is released.
    private final func releaseIteratively(_ operations: consuming SmallList<Operation>) {
        while var operation = operations.popLast() {
            guard isKnownUniquelyReferenced(&operation), let procedure = operation as? Procedure else { continue }
            operations.append(contentsOf: procedure.takeDependencies())
        }
    }

    private final func takeDependencies() -> SmallList<Operation> {
        storage.withLock { storage in
            let dependencies = storage.dependencies
            storage.dependencies = SmallList()
            return dependencies
        }
    }

    deinit {
        releaseIteratively(takeDependencies())
    }

    // MARK: - Dependencies (overrides must live in the class body)

    /// Makes this procedure wait for `operation` to finish before it starts.
    ///
    /// Any `Foundation.Operation` may be a dependency. A failed or cancelled dependency does not stop this
    /// procedure from running. Allowed until the procedure is ready to start; later additions are ignored with a
    /// warning, as is a procedure depending on itself.
    public final override func addDependency(_ operation: Operation) {
        guard operation !== self else {
            log.warning("\(procedureName) cannot depend on itself; ignored")
            return
        }
        enum Outcome {
            case stored, register
            case tooLate(ProcedureStateMachine.State)
        }
        let outcome = storage.withLock { storage -> Outcome in
            switch storage.machine.state {
            case .initialized, .willEnqueue:
                storage.dependencies.append(operation)
                return .stored
            case .pending where storage.readiness == .waiting:
                storage.dependencies.append(operation)
                storage.unfinishedDependencies += 1
                return .register
            case .pending, .started, .executing, .finishing, .finished:
                return .tooLate(storage.machine.state)
            }
        }
        switch outcome {
        case .stored:
            break
        case .register:
            let registered: Bool
            if let procedure = operation as? Procedure {
                registered = procedure.addDependent(self)
            } else {
                registered = OperationFinishWatcher.whenFinished(operation) { [self] in dependencyDidFinish() }
            }
            if !registered { dependencyDidFinish() }
        case .tooLate(let state):
            log.warning(
                "dependency \(operation) added to \(procedureName) in state \(state), after it became ready; ignored")
        }
    }

    /// Removes `operation` from the dependencies. Allowed only before the procedure is enqueued; later it is
    /// ignored with a warning.
    public final override func removeDependency(_ operation: Operation) {
        let removed = storage.withLock { storage -> Bool in
            guard storage.machine.state == .initialized else { return false }
            storage.dependencies.removeAll { $0 === operation }
            return true
        }
        if !removed {
            log.warning("removeDependency(\(operation)) on \(procedureName) after it was enqueued; ignored")
        }
    }

    /// The direct dependencies, in the order they were added. Empty once the procedure has finished.
    public final override var dependencies: [Operation] {
        storage.withLock { $0.dependencies.array }
    }

    // MARK: - Enqueueing (called by ProcedureQueue)

    /// Moves to `willEnqueue` and records `queue`; returns `false` when already enqueued.
    final func prepareToEnqueue(on queue: ProcedureQueue, producedBy producer: Procedure? = nil) -> Bool {
        let action = storage.withLock { storage -> ProcedureStateMachine.EnqueueAction in
            let action = storage.machine.willEnqueue()
            if action == .proceed {
                storage.queueRef = Unmanaged.passUnretained(queue)
                storage.producer = producer
            }
            return action
        }
        switch action {
        case .proceed:
            return true
        case .rejectAlreadyEnqueued(let state):
            Log.write(
                .warning,
                "\(procedureName) was added to a queue again (state \(state)); a procedure runs once, so this add "
                    + "is ignored", subsystem: procedureName)
            return false
        }
    }

    /// Moves straight to `pending` and ready when the procedure has no dependencies; returns `false` (changing
    /// nothing) otherwise, and the queue then uses ``didEnqueue()``.
    final func enqueueIfReadyAtOnce() -> Bool {
        storage.withLock { storage in
            guard storage.dependencies.isEmpty, storage.conditions.isEmpty else { return false }
            storage.machine.didEnqueue()
            storage.readiness = .ready
            return true
        }
    }

    /// Moves to `pending` and starts waiting for dependencies; the queue is told when the procedure is ready.
    /// Returns `true` when the procedure is still waiting afterwards.
    @discardableResult
    final func didEnqueue() -> Bool {
        let dependencies = storage.withLock { storage -> SmallList<Operation> in
            storage.machine.didEnqueue()
            storage.readiness = .waiting
            storage.unfinishedDependencies = storage.dependencies.count + 1
            return storage.dependencies
        }
        var alreadyFinished = 1  // the enqueue-in-progress token
        for dependency in dependencies where !register(asDependentOf: dependency) {
            alreadyFinished += 1
        }
        return !dependenciesDidFinish(count: alreadyFinished)
    }

    /// Registers to hear when `dependency` finishes; returns `false` when it already has.
    private final func register(asDependentOf dependency: Operation) -> Bool {
        if let procedure = dependency as? Procedure {
            return procedure.addDependent(self)
        }
        return OperationFinishWatcher.whenFinished(dependency) { [self] in dependencyDidFinish() }
    }

    /// Adds `waiter` to be told when this procedure finishes; `false` when it already has.
    final func addDependent(_ waiter: any DependencyWaiter) -> Bool {
        storage.withLock { storage in
            guard storage.machine.state != .finished else { return false }
            storage.dependents.append(waiter)
            return true
        }
    }

    /// Returns `true` when this made the procedure ready (or started evaluating its conditions).
    @discardableResult
    private final func dependenciesDidFinish(count: Int) -> Bool {
        enum Next {
            case none
            case ready(ProcedureQueue)
            case evaluate(ProcedureQueue)
        }
        let next = storage.withLock { storage -> Next in
            storage.unfinishedDependencies -= count
            guard storage.readiness == .waiting,
                storage.unfinishedDependencies == 0 || storage.machine.isCancelled,
                let queue = storage.queue
            else { return .none }
            if storage.machine.isCancelled || storage.conditions.isEmpty {
                storage.readiness = .ready
                return .ready(queue)
            }
            storage.readiness = .evaluatingConditions
            return .evaluate(queue)
        }
        switch next {
        case .none: return false
        case .ready(let queue): queue.procedureIsReady(self)
        case .evaluate(let queue): queue.scheduleConditionEvaluation(self)
        }
        return true
    }

    /// Makes a procedure that is waiting (for dependencies, its conditions or its categories) ready at once,
    /// because it was cancelled: an evaluation under way is abandoned, and a category request is withdrawn (the
    /// procedure already holds a slot, so it is handed straight back to a worker to start, and finish).
    final func becomeReadyIfWaiting() {
        enum Cleanup {
            case none
            case evaluation(ConditionEvaluator?)
            case withdraw(UInt64)
        }
        let (queue, cleanup) = storage.withLock { storage -> (ProcedureQueue?, Cleanup) in
            // While the enqueue is still registering dependencies its token keeps the count above zero;
            // `dependenciesDidFinish` sees the cancellation when the token is released.
            guard storage.machine.state == .pending else { return (nil, .none) }
            switch storage.readiness {
            case .waiting:
                storage.readiness = .ready
                return (storage.queue, .none)
            case .evaluatingConditions:
                let evaluation = storage.evaluation
                storage.evaluation = nil
                storage.readiness = .ready
                return (storage.queue, .evaluation(evaluation))
            case .ready:
                guard let ticket = storage.exclusivity.withdrawWaitingRequest() else { return (nil, .none) }
                return (storage.queue, .withdraw(ticket))
            case .notEnqueued:
                return (nil, .none)
            }
        }
        switch cleanup {
        case .none:
            queue?.procedureIsReady(self)
        case .evaluation(let evaluation):
            evaluation?.cancel()
            queue?.procedureIsReady(self)
        case .withdraw(let ticket):
            ExclusivityManager.shared.release(ticket)
            queue?.startAfterLocks(self)
        }
    }

    // MARK: - Conditions (called by ProcedureQueue)

    /// Evaluates the conditions, in one of the queue's worker loops, once dependencies have finished and the
    /// queue is not suspended.
    final func evaluateConditions() {
        let evaluator = storage.withLock { storage -> ConditionEvaluator? in
            guard storage.readiness == .evaluatingConditions else { return nil }
            // `add(condition:)` keeps the list free of duplicates.
            let evaluator = ConditionEvaluator(uniqueConditions: storage.conditions, mode: .all)
            storage.evaluation = evaluator
            return evaluator
        }
        evaluator?.evaluateOwnConditions(of: self)
    }

    /// The evaluator's decision on this procedure's conditions, with their mutually exclusive categories (asked
    /// for when the queue starts the procedure).
    final func conditionsDidComplete(_ result: ConditionResult, categories: Set<String>) {
        let queue = storage.withLock { storage -> ProcedureQueue? in
            guard storage.readiness == .evaluatingConditions else { return nil }
            storage.evaluation = nil
            if case .success(true) = result, !categories.isEmpty {
                storage.exclusivity = .needed(categories)
            }
            return storage.queue
        }
        guard let queue else { return }  // abandoned: the procedure was cancelled meanwhile
        switch result {
        case .failure(let error): cancel(withErrors: [error], becomeReady: false)
        case .success(false): cancel(withErrors: [], becomeReady: false)
        case .success(true): break
        }
        let ready = storage.withLock { storage -> Bool in
            guard storage.readiness == .evaluatingConditions else { return false }
            storage.readiness = .ready
            return true
        }
        if ready { queue.procedureIsReady(self) }
    }

    // MARK: - Observers

    /// Adds an observer. It is held until the procedure finishes.
    ///
    /// The observer is attached in the procedure's event context, after any event already under way; events
    /// that begin after that reach it. An observer attached after the procedure finished gets `didAttach` and
    /// then `did(finish:withErrors:)` as soon as the procedure's remaining events have run, and is not kept.
    public final func addObserver<O: ProcedureObserver>(_ observer: O) {
        guard self is O.Procedure else {
            log.warning("observer \(O.self) expects \(O.Procedure.self), not \(type(of: self)); not added")
            return
        }
        submit(.attach(AnyProcedureObserver(observer)))
    }

    /// Adds a block observer (see `ProcedureProtocol`'s `add…BlockObserver` methods), run inside `synchronizer`
    /// when one is given. A block has no `didAttach`, so while no event is under way or queued (the usual case:
    /// configuring a procedure before enqueueing it) it is simply appended; otherwise it is attached in the event
    /// context like any observer.
    @usableFromInline
    final func addObserver(block: ObserverBlock, synchronizedWith synchronizer: (any ObserverSynchronizer)?) {
        let observer = AnyProcedureObserver(block, synchronizedWith: synchronizer)
        let appended = storage.withLock { storage -> Bool in
            guard storage.loop.isIdle, storage.machine.state != .finished else { return false }
            storage.observers.append(observer)
            return true
        }
        if !appended { submit(.attach(observer)) }
    }

    // MARK: - Producing operations

    /// Adds `operation` to the queue this procedure is on, after the WillAdd observers.
    ///
    /// If `before` is given, that pending event (for example this procedure's pending finish) is held until the
    /// operation has been added. The operation is added even if the procedure finishes meanwhile. Throws
    /// ``ProcedureKitError/Context/noQueue`` when the procedure is not on a queue when called (not yet enqueued,
    /// or finished).
    public final func produce(operation: Operation, before: PendingEvent? = nil) throws {
        guard let queue = storage.withLock({ $0.queue }) else { throw ProcedureKitError.noQueue() }
        submit(.produce(operation, before, .queue(queue)))
    }

    private final func processProduce(_ operation: Operation, before: PendingEvent?, to target: ProducedOperationTarget)
    {
        if case .children = target { willAddChild(operation) }
        let observers = storage.withLock { $0.observers }
        if observers.wants(.willAdd) {
            runWillPhase(.addOperation, continuation: .addProduced(operation, before, target)) { token in
                observers.send(.willAdd(operation, token), to: self)
            }
        } else {
            processAddProduced(operation, before: before, to: target)
        }
    }

    /// Adds the produced operation: to the queue the procedure was on when `produce` was called (even if the
    /// procedure has finished meanwhile), or to a group's children. A group's private queue hands operations its
    /// children produce to the group, which adds them in its own event context.
    private final func processAddProduced(
        _ operation: Operation, before: PendingEvent?, to target: ProducedOperationTarget
    ) {
        switch target {
        case .queue(let queue):
            if let group = queue.owningGroup {
                group.adopt([operation], producedBy: self, before: before)
            } else {
                queue.add(operation: operation, producedBy: self)
            }
        case .children(let producer):
            addChildNow(operation, producedBy: producer)
        }
        withExtendedLifetime(before) {}
        let observers = storage.withLock { $0.observers }
        if observers.wants(.didAdd) { observers.send(.didAdd(operation), to: self) }
    }

    /// A group's hook before a child's WillAdd phase (``GroupProcedure/groupWillAdd(child:)``); nothing otherwise.
    func willAddChild(_ child: Operation) {}

    /// A group's step that puts a child on its private queue; only groups submit ``ProducedOperationTarget/children(producedBy:)``.
    func addChildNow(_ child: Operation, producedBy producer: Procedure?) {
        preconditionFailure("\(procedureName) is not a group; it has no children to add")
    }

    // MARK: - Async waiting

    /// Suspends until the procedure has finished and its DidFinish observers have run.
    ///
    /// Cancelling the waiting Task does not cancel the procedure; use `ProcedureQueue.run(_:)` for that.
    public final func waitUntilFinished() async {
        await withUnsafeContinuation { (continuation: UnsafeContinuation<Void, Never>) in
            if !storage.withLock({ $0.finishWaiters.add(continuation) }) { continuation.resume() }
        }
    }
}

extension Procedure: DependencyWaiter {
    final func dependencyDidFinish() {
        dependenciesDidFinish(count: 1)
    }
}

extension Procedure: ObserverSynchronizer {
    /// Runs `body` serialized with this procedure's events and waits for it.
    ///
    /// `body` runs on the calling thread while this procedure's event context is held: no event of this
    /// procedure runs meanwhile. Used to synchronize another procedure's observer with this one. Called from
    /// inside this procedure's own events, `body` simply runs. It waits while the procedure's events are held by
    /// an outstanding pending-event token.
    public func synchronizeObserverCallback(_ body: () -> Void) {
        synchronize(body)
    }

    /// Runs `body` serialized with this procedure's events; see ``synchronizeObserverCallback(_:)``.
    final func synchronize(_ body: () -> Void) {
        if DrainingProcedures.isDraining(self) {
            body()
            return
        }
        let acquired = DispatchSemaphore(value: 0)
        let released = DispatchSemaphore(value: 0)
        // Queued behind the current events, this event holds the context while `body` runs on this thread.
        let hold = ProcedureEvent.run {
            acquired.signal()
            released.wait()
        }
        if storage.withLock({ $0.loop.accept(hold) }) {
            // Nobody was draining: this thread now holds the context itself.
            DrainingProcedures.withDraining(self) { body() }
            if let next = storage.withLock({ $0.loop.next() }) { drain(startingWith: next) }
            return
        }
        acquired.wait()
        DrainingProcedures.withDraining(self) { body() }
        released.signal()
    }
}
