/// Where a procedure stands between being handed to a ``ProcedureQueue`` and starting: waiting for its
/// dependencies, evaluating its conditions, and asking for its mutually exclusive categories once the queue has
/// given it a slot. Kept in the procedure's storage, under its lock; one mutating func per event, each returning
/// what the owner (``Procedure``) must do after the lock. No locks, callbacks or clocks of its own.
///
/// ```
/// notEnqueued ─enqueued(n)─▶ waiting(unfinished: n + 1) ─dependenciesFinished → 0─▶ evaluating(nil) ─began─▶
///      │                          │ (no conditions, or cancelled)                        evaluating(evaluator)
///      │ enqueuedReadyAtOnce      ▼                                                          │ conditionsDecided
///      └──────────────────────▶ ready ◀──conditionsApplied (no categories)── conditionsDecided(categories)
///                                                                                 │ conditionsApplied
///   readyNeedingLocks(c) ◀────────────────────────────────────────────────────────┘ (with categories)
///      │ requestLocks (started with a slot)      ▲ yieldLocksForSuspension (queue suspended before start)
///      ▼                                         │
///   awaitingLocks(ticket, c) ──locksGranted──▶ holdingLocks(ticket, c) ──finished──▶ ready
/// ```
///
/// A cancel (``cancelled()``) makes a waiting procedure ready at once: dependencies are no longer waited for, an
/// evaluation under way is abandoned, and a lock request still waiting is withdrawn. The queue starts it, and it
/// finishes without executing.
///
/// Tickets are the ``ExclusivityManager``'s identities for a request: never reused, so a grant, release or
/// withdrawal for a ticket that is no longer the procedure's touches nothing.
struct ProcedureReadinessMachine {
    enum State {
        /// Not handed to a queue yet.
        case notEnqueued
        /// Enqueued, waiting for this many dependencies (plus one while the enqueue is registering them).
        case waiting(unfinished: Int)
        /// Dependencies finished; the conditions are being evaluated by `evaluator` (`nil` until the queue starts
        /// the evaluation, which waits while it is suspended).
        case evaluating(evaluator: ConditionEvaluator?)
        /// The evaluator decided (naming these categories if the conditions passed); a failed procedure is being
        /// cancelled before it becomes ready.
        case conditionsDecided(categories: Set<String>)
        /// Handed to the queue's ready list (or started), with no categories to ask for (or none any more).
        case ready
        /// Ready; asks for `categories` when the queue starts it with a slot.
        case readyNeedingLocks(categories: Set<String>)
        /// Started with a slot and asked for `categories` under `ticket`; waiting for the grant.
        case awaitingLocks(ticket: UInt64, categories: Set<String>)
        /// Granted `categories` under `ticket`: starting, and holding them until it finishes.
        case holdingLocks(ticket: UInt64, categories: Set<String>)
    }

    private(set) var state = State.notEnqueued

    // MARK: - Queries

    /// Ready to start (or started), with or without categories: what `Procedure.isReady` reports on a queue.
    var isReady: Bool {
        switch state {
        case .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks: true
        case .notEnqueued, .waiting, .evaluating, .conditionsDecided: false
        }
    }

    /// Waiting for dependencies (what the dependency-cycle check follows).
    var isWaitingForDependencies: Bool {
        if case .waiting = state { return true }
        return false
    }

    /// Evaluating the conditions (the queue may start the evaluation).
    var isEvaluatingConditions: Bool {
        if case .evaluating = state { return true }
        return false
    }

    // MARK: - Enqueueing and dependencies

    /// Enqueued with no dependencies and no conditions: ready at once.
    mutating func enqueuedReadyAtOnce() {
        switch state {
        case .notEnqueued:
            state = .ready
        case .waiting, .evaluating, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks:
            preconditionFailure("enqueued again while \(state)")
        }
    }

    /// Enqueued with `dependencies` to wait for; the enqueue holds one more count while it registers with them.
    mutating func enqueued(dependencies: Int) {
        switch state {
        case .notEnqueued:
            state = .waiting(unfinished: dependencies + 1)
        case .waiting, .evaluating, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks:
            preconditionFailure("enqueued again while \(state)")
        }
    }

    enum DependencyAddedAction: Equatable {
        /// Counted: register with the dependency (and count it down at once if it has already finished).
        case register
        /// No longer waiting for dependencies: the addition is ignored.
        case tooLate
    }

    /// A dependency was added after the procedure was enqueued.
    mutating func dependencyAdded() -> DependencyAddedAction {
        switch state {
        case .waiting(let unfinished):
            state = .waiting(unfinished: unfinished + 1)
            return .register
        case .evaluating, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks:
            return .tooLate
        case .notEnqueued:
            preconditionFailure("dependencyAdded before the procedure was enqueued (it is only stored then)")
        }
    }

    enum WaitOverAction: Equatable {
        /// Still waiting (or no longer waiting at all): nothing to do.
        case none
        /// Tell the queue the procedure is ready.
        case ready
        /// Ask the queue to evaluate the conditions (``evaluationBegan(_:)`` once it does).
        case evaluateConditions
    }

    /// `count` dependencies (or the enqueue's own count) finished. A cancelled procedure stops waiting at once and
    /// skips its conditions.
    mutating func dependenciesFinished(count: Int, isCancelled: Bool, hasConditions: Bool) -> WaitOverAction {
        switch state {
        case .waiting(let unfinished):
            let remaining = unfinished - count
            guard remaining == 0 || isCancelled else {
                state = .waiting(unfinished: remaining)
                return .none
            }
            if isCancelled || !hasConditions {
                state = .ready
                return .ready
            }
            state = .evaluating(evaluator: nil)
            return .evaluateConditions
        case .notEnqueued, .evaluating, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks,
            .holdingLocks:
            // A dependency finishing after the procedure stopped waiting (it was cancelled) changes nothing.
            return .none
        }
    }

    enum CancelledAction {
        /// Nothing was waiting.
        case none
        /// Tell the queue the procedure is ready (it finishes when started).
        case ready
        /// Cancel the evaluation under way (if it had begun), then tell the queue the procedure is ready.
        case abandonEvaluation(ConditionEvaluator?)
        /// Release `ticket`'s request and hand the procedure (which holds its slot) straight back to a worker.
        case withdrawLocks(ticket: UInt64)
    }

    /// The procedure was cancelled while on its queue and not started: whatever it waits for is abandoned.
    mutating func cancelled() -> CancelledAction {
        switch state {
        case .waiting:
            state = .ready
            return .ready
        case .evaluating(let evaluator):
            state = .ready
            return .abandonEvaluation(evaluator)
        case .conditionsDecided:
            state = .ready
            return .abandonEvaluation(nil)
        case .awaitingLocks(let ticket, _):
            state = .ready
            return .withdrawLocks(ticket: ticket)
        case .notEnqueued, .ready, .readyNeedingLocks, .holdingLocks:
            // Already handed to the queue: a cancelled procedure asks for no categories when it starts.
            return .none
        }
    }

    // MARK: - Conditions

    /// The queue started evaluating the conditions with `evaluator`. `false` when the procedure stopped evaluating
    /// meanwhile (it was cancelled): the evaluator is dropped unused.
    mutating func evaluationBegan(_ evaluator: ConditionEvaluator) -> Bool {
        switch state {
        case .evaluating:
            state = .evaluating(evaluator: evaluator)
            return true
        case .notEnqueued, .waiting, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks:
            return false
        }
    }

    /// The evaluator decided; `categories` are those of passing conditions (empty when they failed). Returns
    /// `false` when the evaluation was abandoned meanwhile (the procedure was cancelled and is ready already).
    mutating func conditionsDecided(categories: Set<String>) -> Bool {
        switch state {
        case .evaluating:
            state = .conditionsDecided(categories: categories)
            return true
        case .notEnqueued, .waiting, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks:
            return false
        }
    }

    /// The decision has been applied (a failed procedure cancelled): returns `true` when the procedure became ready
    /// now and the queue must be told; `false` when a cancel made it ready meanwhile.
    mutating func conditionsApplied() -> Bool {
        switch state {
        case .conditionsDecided(let categories):
            state = categories.isEmpty ? .ready : .readyNeedingLocks(categories: categories)
            return true
        case .notEnqueued, .waiting, .evaluating, .ready, .readyNeedingLocks, .awaitingLocks, .holdingLocks:
            return false
        }
    }

    // MARK: - Mutually exclusive categories

    /// Started with a slot: with categories to ask for, moves to `awaitingLocks` under a new ticket and returns the
    /// request; `nil` when there is nothing to ask for (no categories, or already granted). The owner asks only
    /// for a procedure that is pending and not cancelled.
    mutating func requestLocks(ticket makeTicket: () -> UInt64) -> (ticket: UInt64, categories: Set<String>)? {
        switch state {
        case .readyNeedingLocks(let categories):
            let ticket = makeTicket()
            state = .awaitingLocks(ticket: ticket, categories: categories)
            return (ticket, categories)
        case .notEnqueued, .waiting, .evaluating, .conditionsDecided, .ready, .awaitingLocks, .holdingLocks:
            return nil
        }
    }

    /// The manager granted `ticket`: `true` when the request still stands (the categories are now held), `false`
    /// when it was withdrawn meanwhile (the owner gives the grant back).
    mutating func locksGranted(_ ticket: UInt64) -> Bool {
        switch state {
        case .awaitingLocks(let current, let categories) where current == ticket:
            state = .holdingLocks(ticket: ticket, categories: categories)
            return true
        case .holdingLocks(let current, _) where current == ticket:
            return true
        case .notEnqueued, .waiting, .evaluating, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks,
            .holdingLocks:
            return false
        }
    }

    /// Whether `ticket` is still the procedure's request (waiting or granted); checked right after registering it,
    /// since a cancel may have withdrawn it while it was being registered.
    func holdsLockRequest(_ ticket: UInt64) -> Bool {
        switch state {
        case .awaitingLocks(let current, _), .holdingLocks(let current, _): current == ticket
        case .notEnqueued, .waiting, .evaluating, .conditionsDecided, .ready, .readyNeedingLocks: false
        }
    }

    /// The request under `ticket` failed (it would deadlock with a producer): no categories any more.
    mutating func lockRequestAbandoned(_ ticket: UInt64) {
        if holdsLockRequest(ticket) { state = .ready }
    }

    /// Its queue was suspended before the granted procedure started: returns the ticket to release, so that nobody
    /// waits behind a procedure that cannot start; the categories are asked for again when it next starts.
    mutating func yieldLocksForSuspension() -> UInt64? {
        switch state {
        case .holdingLocks(let ticket, let categories):
            state = .readyNeedingLocks(categories: categories)
            return ticket
        case .notEnqueued, .waiting, .evaluating, .conditionsDecided, .ready, .readyNeedingLocks, .awaitingLocks:
            return nil
        }
    }

    /// Finished: returns the ticket to release, if it asked for categories; no categories any more.
    mutating func finished() -> UInt64? {
        switch state {
        case .awaitingLocks(let ticket, _), .holdingLocks(let ticket, _):
            state = .ready
            return ticket
        case .readyNeedingLocks:
            state = .ready
            return nil
        case .notEnqueued, .waiting, .evaluating, .conditionsDecided, .ready:
            return nil
        }
    }
}
