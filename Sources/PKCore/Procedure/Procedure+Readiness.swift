import Foundation

// Readiness: from enqueued to ready, waiting for dependencies and evaluating conditions (the queue asks for
// mutually exclusive categories at start: see Procedure+Exclusivity.swift).

extension Procedure {

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
    final func register(asDependentOf dependency: Operation) -> Bool {
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
    final func dependenciesDidFinish(count: Int) -> Bool {
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
}

extension Procedure: DependencyWaiter {
    final func dependencyDidFinish() {
        dependenciesDidFinish(count: 1)
    }
}
