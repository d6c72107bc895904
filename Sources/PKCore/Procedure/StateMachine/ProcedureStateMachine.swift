/// The lifecycle of one procedure as a value: states, legal transitions and the action each input asks for.
///
/// It holds no locks, runs no callbacks and reads no clocks; ``Procedure`` keeps it inside its mutex and
/// performs the returned actions outside the lock. Every input decides every state explicitly.
///
/// ```
/// initialized -> willEnqueue -> pending -> started -> executing -> finishing -> finished
///                                          started -------------------------> finishing
/// ```
struct ProcedureStateMachine {

    /// The lifecycle states, in order.
    enum State: Int, Comparable, Sendable, CustomStringConvertible {
        case initialized, willEnqueue, pending, started, executing, finishing, finished

        static func < (lhs: State, rhs: State) -> Bool { lhs.rawValue < rhs.rawValue }

        var description: String {
            switch self {
            case .initialized: "initialized"
            case .willEnqueue: "willEnqueue"
            case .pending: "pending"
            case .started: "started"
            case .executing: "executing"
            case .finishing: "finishing"
            case .finished: "finished"
            }
        }
    }

    private(set) var state: State = .initialized
    private(set) var isCancelled = false
    /// A finish has been accepted (it may be deferred until start, or queued behind the current event).
    private(set) var isFinishAccepted = false
    /// Cancel and finish errors, accumulated in the order they were accepted.
    private(set) var errors: [any Error] = []

    /// Whether a `dependencyCycle` error is among ``errors``: the procedure was cancelled for a cycle.
    var wasCancelledForCycle: Bool {
        !errors.isEmpty
            && errors.contains {
                guard let error = $0 as? ProcedureKitError, case .dependencyCycle = error.context else { return false }
                return true
            }
    }
    /// When true, the procedure never finishes by itself; `execute()` runs even when cancelled.
    let automaticFinishingDisabled: Bool

    init(automaticFinishingDisabled: Bool = false) {
        self.automaticFinishingDisabled = automaticFinishingDisabled
    }

    // MARK: - Enqueue

    enum EnqueueAction: Equatable {
        /// Go on with the enqueue.
        case proceed
        /// The procedure was already enqueued (or started) once; refuse, reporting the current state.
        case rejectAlreadyEnqueued(State)
    }

    mutating func willEnqueue() -> EnqueueAction {
        switch state {
        case .initialized:
            state = .willEnqueue
            return .proceed
        case .willEnqueue, .pending, .started, .executing, .finishing, .finished:
            return .rejectAlreadyEnqueued(state)
        }
    }

    mutating func didEnqueue() {
        switch state {
        case .willEnqueue:
            state = .pending
        case .initialized, .pending, .started, .executing, .finishing, .finished:
            preconditionFailure("didEnqueue in state \(state)")
        }
    }

    // MARK: - Start

    enum StartAction: Equatable {
        /// Run the WillExecute observers, then continue with ``willExecuteObserversDidFinish()``.
        case runWillExecute
        /// Skip execute: process the accepted (or automatic) finish now.
        case finish
        /// Started twice, or started after finishing; ignore, reporting the state.
        case ignore(State)
        /// Started by something other than a ``ProcedureQueue``.
        case notEnqueued
    }

    mutating func start() -> StartAction {
        switch state {
        case .initialized, .willEnqueue:
            return .notEnqueued
        case .pending:
            state = .started
            if isFinishAccepted { return .finish }
            if isCancelled && !automaticFinishingDisabled {
                isFinishAccepted = true
                return .finish
            }
            // With automatic finishing disabled a cancelled procedure still goes through WillExecute and
            // executes; its code must finish it.
            return .runWillExecute
        case .started, .executing, .finishing, .finished:
            return .ignore(state)
        }
    }

    /// Moves a procedure that was started outside a queue into `pending`, so it can then start.
    mutating func adoptWithoutQueue() -> Bool {
        switch state {
        case .initialized:
            state = .pending
            return true
        case .willEnqueue, .pending, .started, .executing, .finishing, .finished:
            return false
        }
    }

    enum ExecuteAction: Equatable {
        /// Call `execute()`; the state is now `executing`.
        case execute
        /// Cancelled meanwhile: finish without executing.
        case finish
        /// A finish was accepted meanwhile; it is already queued.
        case none
    }

    mutating func willExecuteObserversDidFinish() -> ExecuteAction {
        switch state {
        case .started:
            if isFinishAccepted { return .none }
            if isCancelled && !automaticFinishingDisabled {
                isFinishAccepted = true
                return .finish
            }
            state = .executing
            return .execute
        case .finishing, .finished:
            // A finish accepted during the WillExecute phase (from an observer, or another thread) was queued
            // ahead of the phase's continuation and has already been processed.
            precondition(isFinishAccepted, "willExecuteObserversDidFinish in state \(state) without a finish")
            return .none
        case .initialized, .willEnqueue, .pending, .executing:
            preconditionFailure("willExecuteObserversDidFinish in state \(state)")
        }
    }

    // MARK: - Finish

    enum FinishAction: Equatable {
        /// Queue the finishing work.
        case beginFinishing
        /// Cancelled but not started: the finish is stored and carried out at start.
        case deferUntilStart
        /// Not started and not cancelled: finishing now is not allowed.
        case rejectNotStarted(State)
        /// A finish was already accepted; this one is ignored.
        case ignoreDuplicate(State)
    }

    mutating func finish(errors newErrors: [any Error]) -> FinishAction {
        if isFinishAccepted { return .ignoreDuplicate(state) }
        switch state {
        case .initialized, .willEnqueue, .pending:
            guard isCancelled else { return .rejectNotStarted(state) }
            isFinishAccepted = true
            record(newErrors)
            return .deferUntilStart
        case .started, .executing:
            isFinishAccepted = true
            record(newErrors)
            return .beginFinishing
        case .finishing, .finished:
            return .ignoreDuplicate(state)
        }
    }

    /// Appends `newErrors` to ``errors``. Most finishes and cancels carry none, and appending an empty array to
    /// an empty one still goes through the array's reallocation path, so that case is skipped.
    private mutating func record(_ newErrors: [any Error]) {
        guard !newErrors.isEmpty else { return }
        errors.append(contentsOf: newErrors)
    }

    /// Enters `finishing`, returning the errors the procedure finishes with.
    mutating func beginFinishing() -> [any Error] {
        switch state {
        case .started, .executing:
            precondition(isFinishAccepted, "beginFinishing without an accepted finish")
            state = .finishing
            return errors
        case .initialized, .willEnqueue, .pending, .finishing, .finished:
            preconditionFailure("beginFinishing in state \(state)")
        }
    }

    /// Enters `finished` after the WillFinish phase.
    mutating func completeFinishing() -> [any Error] {
        switch state {
        case .finishing:
            state = .finished
            return errors
        case .initialized, .willEnqueue, .pending, .started, .executing, .finished:
            preconditionFailure("completeFinishing in state \(state)")
        }
    }

    // MARK: - Cancel

    enum CancelAction: Equatable {
        /// Run the DidCancel work. `wasPending` is true when the procedure waits in a queue and should now be
        /// treated as ready.
        case didCancel(wasPending: Bool)
        /// Already cancelled, already finishing, or finished: nothing happens.
        case ignore
    }

    mutating func cancel(errors newErrors: [any Error]) -> CancelAction {
        if isCancelled || isFinishAccepted { return .ignore }
        switch state {
        case .initialized, .willEnqueue, .pending, .started, .executing:
            isCancelled = true
            record(newErrors)
            return .didCancel(wasPending: state == .pending)
        case .finishing, .finished:
            return .ignore
        }
    }
}
