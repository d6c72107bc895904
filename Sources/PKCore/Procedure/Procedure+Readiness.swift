import Foundation

// Readiness: from enqueued to ready, waiting for dependencies and evaluating conditions (the queue asks for
// mutually exclusive categories at start: see Procedure+Exclusivity.swift). The states and events are
// `ProcedureReadinessMachine`'s; the methods here feed it events under the lock and perform its actions after it.

extension Procedure {

    // MARK: - Enqueueing (called by ProcedureQueue)

    /// Moves to `willEnqueue` and records `queue`; returns `false` when already enqueued.
    final func prepareToEnqueue(on queue: ProcedureQueue, producedBy producer: Procedure? = nil) -> Bool {
        let action = storage.withLock { state -> ProcedureStateMachine.EnqueueAction in
            let action = state.machine.willEnqueue()
            if action == .proceed {
                state.queueRef = Unmanaged.passUnretained(queue)
                state.producer = producer
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
    /// nothing) otherwise, and the queue then uses ``arrive()``.
    final func enqueueIfReadyAtOnce() -> Bool {
        storage.withLock { state in
            guard state.dependencies.isEmpty, state.conditions.isEmpty else { return false }
            state.machine.didEnqueue()
            state.readiness.enqueuedReadyAtOnce()
            return true
        }
    }

    /// A procedure enqueued and registered with its dependencies, still kept waiting by its enqueue token (see
    /// ``arrive()``); ``ProcedureQueue`` releases the token once it has looked for a cycle the arrival closed.
    struct Arrival {
        let procedure: Procedure
        /// Dependencies that had already finished, counted down with the token.
        let alreadyFinished: Int
        /// Procedures enqueued before this one depend on it: only such an arrival can close a dependency cycle
        /// (a cycle's last member to arrive has a dependent that arrived before it).
        let hadEarlyDependents: Bool
        /// A dependency was a procedure on no queue when the procedure registered with it: the queue looks again
        /// later (see `ProcedureQueue+StrandedDependencies.swift`).
        let waitsOnNoQueue: Bool

        /// Releases the enqueue token; returns `true` when the procedure still waits for dependencies.
        func releaseToken() -> Bool {
            !procedure.dependenciesDidFinish(count: alreadyFinished + 1)  // + 1: the enqueue token
        }
    }

    /// Moves to `pending` and registers with the dependencies, holding the enqueue token: the procedure cannot
    /// become ready until ``Arrival/releaseToken()``.
    final func arrive() -> Arrival {
        let (dependencies, hadEarlyDependents) = storage.withLock { state in
            state.machine.didEnqueue()
            state.readiness.enqueued(dependencies: state.dependencies.count)
            return (state.dependencies, !state.dependents.isEmpty)
        }
        var alreadyFinished = 0
        var waitsOnNoQueue = false
        for dependency in dependencies {
            if let procedure = dependency as? Procedure {
                switch procedure.registerDependent(self) {
                case .finished: alreadyFinished += 1
                case .registered: break
                case .registeredOnNoQueue: waitsOnNoQueue = true
                }
            } else if !register(asDependentOf: dependency) {
                alreadyFinished += 1
            }
        }
        return Arrival(
            procedure: self, alreadyFinished: alreadyFinished, hadEarlyDependents: hadEarlyDependents,
            waitsOnNoQueue: waitsOnNoQueue)
    }

    /// Adds `waiter` to be told when this procedure finishes; `false` when it already has.
    final func addDependent(_ waiter: any DependencyWaiter) -> Bool {
        registerDependent(waiter) != .finished
    }

    /// How ``registerDependent(_:)`` went.
    enum DependentRegistration {
        /// The procedure had finished: nothing was registered.
        case finished
        /// Registered.
        case registered
        /// Registered, and the procedure is on no queue yet.
        case registeredOnNoQueue
    }

    /// Adds `waiter` to be told when this procedure finishes, and says whether the procedure is on a queue.
    final func registerDependent(_ waiter: any DependencyWaiter) -> DependentRegistration {
        storage.withLock { state in
            guard state.machine.state != .finished else { return .finished }
            state.dependents.append(waiter)
            return state.machine.state == .initialized ? .registeredOnNoQueue : .registered
        }
    }

    /// Returns `true` when this made the procedure ready (or started evaluating its conditions).
    @discardableResult
    final func dependenciesDidFinish(count: Int) -> Bool {
        let (action, queue) = storage.withLock { state in
            let action = state.readiness.dependenciesFinished(
                count: count, isCancelled: state.machine.isCancelled, hasConditions: !state.conditions.isEmpty)
            return (action, state.queue)
        }
        // The queue is set from enqueue until finished; a procedure waiting for dependencies has not finished.
        guard let queue else { return false }
        switch action {
        case .none: return false
        case .ready: queue.procedureIsReady(self)
        case .evaluateConditions: queue.scheduleConditionEvaluation(self)
        }
        return true
    }

    /// Makes a procedure that is waiting (for dependencies, its conditions or its categories) ready at once,
    /// because it was cancelled: an evaluation under way is abandoned, and a category request is withdrawn (the
    /// procedure already holds a slot, so it is handed straight back to a worker to start, and finish).
    final func becomeReadyIfWaiting() {
        let (action, queue) = storage.withLock {
            state -> (ProcedureReadinessMachine.CancelledAction, ProcedureQueue?) in
            // While the enqueue is still registering dependencies its count keeps the procedure waiting;
            // `dependenciesDidFinish` sees the cancellation when that count is released.
            guard state.machine.state == .pending else { return (.none, nil) }
            return (state.readiness.cancelled(), state.queue)
        }
        switch action {
        case .none:
            break
        case .ready:
            queue?.procedureIsReady(self)
        case .abandonEvaluation(let evaluation):
            evaluation?.cancel()
            queue?.procedureIsReady(self)
        case .withdrawLocks(let ticket):
            ExclusivityManager.shared.release(ticket)
            queue?.startAfterLocks(self)
        }
    }

    // MARK: - Conditions (called by ProcedureQueue)

    /// Evaluates the conditions, in one of the queue's worker loops, once dependencies have finished and the
    /// queue is not suspended.
    final func evaluateConditions() {
        let evaluator = storage.withLock { state -> ConditionEvaluator? in
            guard state.readiness.isEvaluatingConditions else { return nil }
            // `add(condition:)` keeps the list free of duplicates.
            let evaluator = ConditionEvaluator(uniqueConditions: state.conditions, mode: .all)
            return state.readiness.evaluationBegan(evaluator) ? evaluator : nil
        }
        evaluator?.evaluateOwnConditions(of: self)
    }

    /// The evaluator's decision on this procedure's conditions, with their mutually exclusive categories (asked
    /// for when the queue starts the procedure).
    final func conditionsDidComplete(_ result: ConditionResult, categories: Set<String>) {
        let queue = storage.withLock { state -> ProcedureQueue? in
            let passed: Bool
            if case .success(true) = result { passed = true } else { passed = false }
            return state.readiness.conditionsDecided(categories: passed ? categories : []) ? state.queue : nil
        }
        guard let queue else { return }  // abandoned: the procedure was cancelled meanwhile
        switch result {
        case .failure(let error): cancel(withErrors: [error], becomeReady: false)
        case .success(false): cancel(withErrors: [], becomeReady: false)
        case .success(true): break
        }
        if storage.withLock({ $0.readiness.conditionsApplied() }) { queue.procedureIsReady(self) }
    }
}

extension Procedure: DependencyWaiter {
    final func dependencyDidFinish() {
        dependenciesDidFinish(count: 1)
    }
}
