import Foundation

// Readiness: from enqueued to ready, waiting for dependencies and evaluating conditions (the queue asks for
// mutually exclusive categories at start: see Procedure+Exclusivity.swift).

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
    /// nothing) otherwise, and the queue then uses ``didEnqueue()``.
    final func enqueueIfReadyAtOnce() -> Bool {
        storage.withLock { state in
            guard state.dependencies.isEmpty, state.conditions.isEmpty else { return false }
            state.machine.didEnqueue()
            state.readiness = .ready
            return true
        }
    }

    /// Moves to `pending` and starts waiting for dependencies; the queue is told when the procedure is ready.
    /// Returns `true` when the procedure is still waiting afterwards.
    @discardableResult
    final func didEnqueue() -> Bool {
        let dependencies = storage.withLock { state -> SmallList<Operation> in
            state.machine.didEnqueue()
            state.readiness = .waiting
            state.unfinishedDependencies = state.dependencies.count + 1
            return state.dependencies
        }
        let alreadyFinished = register(asDependentOf: dependencies)
        return !dependenciesDidFinish(count: alreadyFinished + 1)  // + 1: the enqueue-in-progress token
    }

    /// Adds `waiter` to be told when this procedure finishes; `false` when it already has.
    final func addDependent(_ waiter: any DependencyWaiter) -> Bool {
        storage.withLock { state in
            guard state.machine.state != .finished else { return false }
            state.dependents.append(waiter)
            return true
        }
    }

    /// Returns `true` when this made the procedure ready (or started evaluating its conditions).
    @discardableResult
    final func dependenciesDidFinish(count: Int) -> Bool {
        enum Next {
            case none
            case ready(ProcedureQueue)
            case evaluate(ProcedureQueue)
        }
        let next = storage.withLock { state -> Next in
            state.unfinishedDependencies -= count
            guard state.readiness == .waiting,
                state.unfinishedDependencies == 0 || state.machine.isCancelled,
                let queue = state.queue
            else { return .none }
            if state.machine.isCancelled || state.conditions.isEmpty {
                state.readiness = .ready
                return .ready(queue)
            }
            state.readiness = .evaluatingConditions
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
        let (queue, cleanup) = storage.withLock { state -> (ProcedureQueue?, Cleanup) in
            // While the enqueue is still registering dependencies its token keeps the count above zero;
            // `dependenciesDidFinish` sees the cancellation when the token is released.
            guard state.machine.state == .pending else { return (nil, .none) }
            switch state.readiness {
            case .waiting:
                state.readiness = .ready
                return (state.queue, .none)
            case .evaluatingConditions:
                let evaluation = state.evaluation
                state.evaluation = nil
                state.readiness = .ready
                return (state.queue, .evaluation(evaluation))
            case .ready:
                guard let ticket = state.exclusivity.withdrawWaitingRequest() else { return (nil, .none) }
                return (state.queue, .withdraw(ticket))
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
        let evaluator = storage.withLock { state -> ConditionEvaluator? in
            guard state.readiness == .evaluatingConditions else { return nil }
            // `add(condition:)` keeps the list free of duplicates.
            let evaluator = ConditionEvaluator(uniqueConditions: state.conditions, mode: .all)
            state.evaluation = evaluator
            return evaluator
        }
        evaluator?.evaluateOwnConditions(of: self)
    }

    /// The evaluator's decision on this procedure's conditions, with their mutually exclusive categories (asked
    /// for when the queue starts the procedure).
    final func conditionsDidComplete(_ result: ConditionResult, categories: Set<String>) {
        let queue = storage.withLock { state -> ProcedureQueue? in
            guard state.readiness == .evaluatingConditions else { return nil }
            state.evaluation = nil
            if case .success(true) = result, !categories.isEmpty {
                state.exclusivity = .needed(categories)
            }
            return state.queue
        }
        guard let queue else { return }  // abandoned: the procedure was cancelled meanwhile
        switch result {
        case .failure(let error): cancel(withErrors: [error], becomeReady: false)
        case .success(false): cancel(withErrors: [], becomeReady: false)
        case .success(true): break
        }
        let ready = storage.withLock { state -> Bool in
            guard state.readiness == .evaluatingConditions else { return false }
            state.readiness = .ready
            return true
        }
        if ready { queue.procedureIsReady(self) }
    }
}

extension Procedure: DependencyWaiter {
    final func dependencyDidFinish() {
        dependenciesDidFinish(count: 1)
    }
}
