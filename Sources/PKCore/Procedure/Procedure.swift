import Foundation
import Synchronization

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
    // @unchecked Sendable: every mutable field of the procedure lives in `storage`, guarded by its Mutex, except
    // `queueIndex`, which is guarded by the mutex of the queue the procedure is on (see its declaration).
    // Foundation's own Operation fields are only touched through Foundation's own locked accessors.
    //
    // The lifecycle, one file per concern (this file holds the class body: Operation's overrides and the override
    // points must live here):
    //   Procedure+Readiness.swift    enqueued → waiting for dependencies → evaluating conditions → ready
    //   Procedure+Exclusivity.swift  mutually exclusive categories, asked for at start
    //   Procedure+Executing.swift    the start event, the WillExecute phase, execute()
    //   Procedure+Cancelling.swift   accepting a cancel, then its DidCancel event
    //   Procedure+Finishing.swift    accepting a finish, the WillFinish phase, letting go of the run
    //   Procedure+EventContext.swift the serial event context every event above runs in
    //   Procedure+Observers.swift, Procedure+Producing.swift, Procedure+Waiting.swift

    final let storage: PKMutex<ProcedureStorage>

    /// The procedure's slot in its queue's member list (`-1` when on none). Guarded by the queue's mutex, not by
    /// `storage`: read and written only by `ProcedureQueueState` under its queue's lock, so keeping it here saves
    /// the queue taking the procedure's lock on every add and removal.
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

    /// A synchronous hook run on the cancelling thread right after a cancel is accepted, before the DidCancel event
    /// (``procedureDidCancel(withErrors:)`` and the observers) runs in the event context; used by framework
    /// subclasses (async procedures cancel their Task here).
    func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {}

    /// What the procedure's progress is made of: its own reports; a group's is its children's (see
    /// ``ProgressNode``).
    var progressMode: ProgressNodeState.Mode { .own }

    /// When its progress node was just made (outside the procedure's lock): the procedures whose progress rolls up
    /// into this one's, and how many such children finished before (a group's; nothing for other procedures).
    func progressChildren() -> (finished: Int, children: [Procedure]) { (0, []) }

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
            $0.machine.state == .initialized || $0.readiness.isReady || $0.machine.isCancelled
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

    // MARK: - Cancelling

    /// Cancels the procedure without errors. See ``cancel(withErrors:)``.
    public final override func cancel() {
        cancel(withErrors: [])
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
        let (next, drainNow) = storage.withLock { state -> (StartDecision, Bool) in
            if state.machine.adoptWithoutQueue() { return (.adopted, false) }
            if let request = state.makeExclusivityRequest() { return (.requestLocks(request), false) }
            return (.submitted, state.submit(.start))
        }
        switch next {
        case .submitted:
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

    deinit {
        let (dependencies, cancelledForCycle) = storage.withLock { state in
            (replaceValue(&state.dependencies, with: SmallList()), state.machine.wasCancelledForCycle)
        }
        if cancelledForCycle { CycleRemnants.forget(self) }
        releaseIteratively(dependencies)
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
        let outcome = storage.withLock { state -> DependencyAddition in
            switch state.machine.state {
            case .initialized, .willEnqueue:
                state.dependencies.append(operation)
                return .stored
            case .pending:
                guard state.readiness.dependencyAdded() == .register else { return .tooLate(.pending) }
                state.dependencies.append(operation)
                return .register
            case .started, .executing, .finishing, .finished:
                return .tooLate(state.machine.state)
            }
        }
        switch outcome {
        case .stored:
            break
        case .register:
            if !register(asDependentOf: operation) {
                dependencyDidFinish()
            } else if let dependency = operation as? Procedure, let queue = storage.withLock({ $0.queue }) {
                // A dependency added while waiting may close a dependency cycle, or be on no queue.
                queue.cancelCycles(through: [self])
                if dependency.isOnNoQueue { queue.watchForStrandedDependencies(of: self) }
            }
        case .tooLate(let state):
            log.warning(
                "dependency \(operation) added to \(procedureName) in state \(state), after it became ready; ignored")
        }
    }

    /// Removes `operation` from the dependencies. Allowed only before the procedure is enqueued; later it is
    /// ignored with a warning.
    public final override func removeDependency(_ operation: Operation) {
        let removed = storage.withLock { state -> Bool in
            guard state.machine.state == .initialized else { return false }
            state.dependencies.removeAll { $0 === operation }
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

    /// A group's hook before a child's WillAdd phase (``GroupProcedure/groupWillAdd(child:)``); nothing otherwise.
    func willAddChild(_ child: Operation) {}

    /// A group's step that puts a child on its private queue; only groups submit ``ProducedOperationTarget/children(producedBy:)``.
    func addChildNow(_ child: Operation, producedBy producer: Procedure?) {
        preconditionFailure("\(procedureName) is not a group; it has no children to add")
    }
}

/// What ``Procedure/start()`` decided under the procedure's lock.
enum StartDecision {
    /// Started by something other than a ``ProcedureQueue``: it runs on its own, with a warning.
    case adopted
    /// The `.start` event was submitted to the event context.
    case submitted
    /// Its conditions named mutually exclusive categories: it asks for them first, now that it holds a slot.
    case requestLocks(ExclusivityRequest)
}

/// What ``Procedure/addDependency(_:)`` decided under the procedure's lock.
enum DependencyAddition {
    /// Not enqueued yet: stored, and registered with when the procedure is enqueued.
    case stored
    /// Enqueued and still waiting for dependencies: counted, to be registered with now.
    case register
    /// Ready, started or finished (the lifecycle state): ignored.
    case tooLate(ProcedureStateMachine.State)
}
