import Foundation

// Finishing: accepting a finish, the WillFinish phase, and letting go of everything the run held.

extension Procedure {

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
        let (action, drainNow) = storage.withLock { state -> (ProcedureStateMachine.FinishAction, Bool) in
            let action = state.machine.finish(errors: errors)
            guard case .beginFinishing = action else { return (action, false) }
            return (action, state.submit(.beginFinishing))
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

    final func processBeginFinishing() {
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
    final func processWillFinishDone() {
        let (queueRef, errors) = storage.withLock { ($0.queueRef, $0.machine.errors) }
        queueRef?._withUnsafeGuaranteedRef { $0.procedureWillFinish(self, withErrors: errors) }
        completeFinishing()
    }

    final func completeFinishing() {
        // Everything let go of here is moved out and released after the lock: a release can run user code (a
        // condition's or a captured object's deinit), which must never run under the procedure's lock.
        var run = storage.withLock { $0.takeFinishedRun() }
        let errors = run.errors
        // Released here, after the lock.
        run.conditions = []
        run.producer = nil
        // Progress completes before anyone hears that the procedure finished (Foundation's waiters, dependents).
        run.progress?.finish()
        WorkerLoop.procedureIsFinishing(self)
        // Foundation's own bookkeeping: waitUntilFinished(), completionBlock, plain operations depending on us.
        willChangeValue(forKey: "isFinished")
        didChangeValue(forKey: "isFinished")
        for dependent in run.dependents { dependent.dependencyDidFinish() }
        releaseIteratively(run.dependencies)
        procedureIsFinished()
        procedureDidFinish(withErrors: errors)
        if let ticket = run.lockTicket { ExclusivityManager.shared.release(ticket) }
        run.observers.instrument?.procedureDidFinish(self, withErrors: errors)
        if run.observers.wants(.didFinish) { run.observers.send(.didFinish(errors), to: self) }
        let (waiters, attached) = storage.withLock { state -> (FinishWaiters, ObserverList) in
            let attached = state.observers
            // The instrument stays: a recorder recognises the procedure by it for as long as the procedure lives
            // (a dependent traced later links to it), and it holds nothing once the procedure finished.
            state.observers = ObserverList(instrument: attached.instrument)
            return (state.finishWaiters.close(), attached)
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
        if let queueRef = run.queueRef,
            queueRef._withUnsafeGuaranteedRef({ $0.procedureDidFinish(self, withErrors: errors) })
        {
            QueueKeepAlive.giveBackSelfReference(queueRef)
        }
    }

    /// Drops a list of operations without recursing down long chains of unstarted procedures: a procedure that
    /// only this list references hands its own dependencies to the list before it is released.
    final func releaseIteratively(_ operations: consuming SmallList<Operation>) {
        while var operation = operations.popLast() {
            guard isKnownUniquelyReferenced(&operation), let procedure = operation as? Procedure else { continue }
            operations.append(contentsOf: procedure.takeDependencies())
        }
    }

    final func takeDependencies() -> SmallList<Operation> {
        storage.withLock { state in
            let dependencies = state.dependencies
            state.dependencies = SmallList()
            return dependencies
        }
    }
}

/// What finishing takes out of a procedure's storage in one critical section, to act on, and let go of, after the
/// lock: a release can run user code (a condition's or a captured object's deinit).
struct FinishedRun {
    let errors: [any Error]
    /// Waiters to tell that the procedure finished.
    let dependents: SmallList<any DependencyWaiter>
    let queueRef: Unmanaged<ProcedureQueue>?
    let observers: ObserverList
    let dependencies: SmallList<Operation>
    /// The mutually exclusive categories' request to release, if it made one.
    let lockTicket: UInt64?
    /// The procedure's progress, if anyone asked for it: it becomes complete.
    let progress: ProgressNode?
    /// Released first, by assigning over them (`var`, so that nothing is copied to release them).
    var conditions: [Condition]
    var producer: Procedure?
}

extension ProcedureStorage {
    /// Moves to finished and takes out everything the run held (the observers stay, for late DidFinish delivery).
    @inline(__always)
    mutating func takeFinishedRun() -> FinishedRun {
        let run = FinishedRun(
            errors: machine.completeFinishing(), dependents: dependents, queueRef: queueRef, observers: observers,
            dependencies: dependencies, lockTicket: readiness.finished(), progress: progress, conditions: conditions,
            producer: producer)
        dependents = SmallList()
        queueRef = nil
        dependencies = SmallList()
        conditions = []
        producer = nil
        return run
    }
}
