import Dispatch
import Foundation

// Scheduling: how the queue hears that its members are ready and finished, and hands work to its worker loops
// (see `WorkerLoop` and `ProcedureQueueState`).
extension ProcedureQueue {
    func procedureIsReady(_ procedure: Procedure) {
        becameReady(.procedure(procedure), priority: procedure.queuePriority)
    }

    func operationIsReady(_ node: OperationNode) {
        becameReady(.operation(node), priority: node.operation.queuePriority)
    }

    private func becameReady(_ member: QueueMember, priority: Operation.QueuePriority) {
        // A loop whose procedure is finishing on this thread takes its next work when the slot is freed.
        // PERF(W3): a dependent made ready by a finish runs next on the same warm thread, with no dispatch.
        let loopWillPick = WorkerLoop.willPick(for: self)
        let target = state.withLock { state -> WorkerLoop.Target? in
            state.waiting -= 1
            state.ready.append(member, priority: priority)
            return loopWillPick ? nil : state.reserveLoop()
        }
        if let target { WorkerLoop.spawn(for: self, on: target) }
    }

    /// Has a worker loop evaluate `procedure`'s conditions, or waits until the queue is resumed.
    func scheduleConditionEvaluation(_ procedure: Procedure) {
        // A loop whose procedure is finishing on this thread takes its next work when the slot is freed.
        let loopWillPick = WorkerLoop.willPick(for: self)
        let target = state.withLock { state -> WorkerLoop.Target? in
            if state.isSuspended {
                state.deferredEvaluations.append(procedure)
                return nil
            }
            state.evaluations.append(procedure)
            return loopWillPick ? nil : state.reserveLoop()
        }
        if let target { WorkerLoop.spawn(for: self, on: target) }
    }

    /// Makes sure a worker loop will take waiting work: evaluations, or ready work if a slot is free.
    func launchReadyWork() {
        let target = state.withLock { $0.reserveLoop() }
        if let target { WorkerLoop.spawn(for: self, on: target) }
    }

    /// Called by a loop as it starts (`starting`, no longer pending) and between items: takes the next work
    /// (see ``ProcedureQueueState/popWork()``). If more is waiting, another loop is dispatched in case this
    /// one's next item blocks its thread.
    func nextForLoop(starting: Bool) -> WorkerLoop.Work? {
        let (work, target) = state.withLock { state -> (WorkerLoop.Work?, WorkerLoop.Target?) in
            if starting { state.pendingLoops -= 1 }
            return (state.popWork(), state.reserveLoop())
        }
        if let target { WorkerLoop.spawn(for: self, on: target) }
        return work
    }

    /// Where the queue's work runs now: its `underlyingQueue`, or a loop budget lane at its quality of service.
    var loopTarget: WorkerLoop.Target {
        state.withLock { $0.loopTarget }
    }

    /// The queue's `underlyingQueue` when the calling thread is not running on it, so `execute()` must hop there.
    func underlyingQueueToHopTo() -> DispatchQueue? {
        guard hasUnderlyingQueue.load(ordering: .relaxed) else { return nil }
        let (queue, token) = state.withLock { ($0.underlyingQueue, $0.underlyingToken) }
        guard let queue else { return nil }
        if let token, DispatchQueue.getSpecific(key: Self.underlyingKey) === token { return nil }
        return queue
    }

    /// Where a procedure of this queue runs its start and `execute()` when the thread that has them did not come
    /// from the queue (see `Procedure.nextQueuedEvent()`): the ``underlyingQueue``, or a global queue at the
    /// queue's quality of service.
    var executionQueue: DispatchQueue {
        switch state.withLock({ $0.loopTarget }) {
        case .underlying(let queue): queue
        case .lane(let qos): DispatchQueue.global(qos: qos)
        }
    }

    func procedureWillFinish(_ procedure: Procedure, withErrors errors: [any Error]) {
        notify(.willFinishProcedure) { $0.procedureQueue(self, willFinishProcedure: procedure, withErrors: errors) }
    }

    /// Called by a procedure as the last step of finishing. Returns `true` when the caller must give back the
    /// queue's reference to itself (``QueueKeepAlive/giveBackSelfReference(_:)``), after it has stopped using the
    /// queue.
    func procedureDidFinish(_ procedure: Procedure, withErrors errors: [any Error]) -> Bool {
        didFinish(.procedure(procedure), kind: .didFinishProcedure) {
            $0.procedureQueue(self, didFinishProcedure: procedure, withErrors: errors)
        }
    }

    /// Called by a plain operation's node once the operation finished; returns as ``procedureDidFinish(_:withErrors:)``.
    func operationDidFinish(_ node: OperationNode) -> Bool {
        didFinish(.operation(node), kind: .didFinishOperation) {
            $0.procedureQueue(self, didFinishOperation: node.operation)
        }
    }

    /// Frees `member`'s slot, tells the listeners with `notification`, then completes the member's accounting:
    /// in the same critical section as freeing the slot when nobody listens to `kind`, otherwise in a second one after the
    /// notification (so waiters wake only after it). Returns `true` when nothing is outstanding any more (the
    /// caller then gives back the queue's reference to itself, see ``QueueKeepAlive``).
    private func didFinish(
        _ member: QueueMember, kind: QueueEventKinds, notification: (any ProcedureQueueObserver) -> Void
    ) -> Bool {
        // PERF(W1): nobody listens: freeing the slot and settling the member take one critical section, not two.
        guard isListened(kind) else { return wake(finished(member, settle: true)) }
        _ = finished(member, settle: false)
        notify(kind, notification)
        return wake(state.withLock { $0.settle() })
    }

    /// Frees `member`'s slot; picks the next work for the loop finishing it on this thread, if any, and
    /// makes sure a loop will take the rest. With `settle`, also completes the member's accounting; returns the
    /// waiters to wake if that left nothing outstanding.
    private func finished(_ member: QueueMember, settle: Bool) -> [ProcedureQueueState.IdleWaiter]? {
        let loopWillPick = WorkerLoop.willPick(for: self)
        let (next, target, stalled, idle) = state.withLock {
            state -> (WorkerLoop.Work?, WorkerLoop.Target?, Bool, [ProcedureQueueState.IdleWaiter]?) in
            if state.remove(member), state.running > 0 { state.running -= 1 }
            let next = loopWillPick ? state.popWork() : nil
            let idle = settle ? state.settle() : nil
            return (next, state.reserveLoop(), state.reserveStallCheck(), idle)
        }
        if loopWillPick { WorkerLoop.handOff(next) }
        if let target { WorkerLoop.spawn(for: self, on: target) }
        if stalled { scheduleStallCheck() }
        return idle
    }

    /// Wakes the waiters of a queue that just became idle; returns whether it did (`nil`: not idle).
    private func wake(_ waiters: [ProcedureQueueState.IdleWaiter]?) -> Bool {
        guard let waiters else { return false }
        for waiter in waiters { waiter.resume() }
        return true
    }
}
