import Foundation

/// The scheduler's bookkeeping for one ``ProcedureQueue``, guarded by the queue's mutex.
struct ProcedureQueueState {
    /// Every unfinished operation on the queue, held strongly; each knows its index (swap-remove, no hashing).
    // PERF(W1): O(1) membership without a hash or a Set's allocation per operation.
    var members: [QueueMember] = []
    /// Operations whose dependencies have finished, waiting for a slot.
    var ready = ReadyQueue()
    /// Operations started and not yet finished.
    var running = 0
    /// Operations enqueued and still waiting for dependencies.
    var waiting = 0
    var maxConcurrentOperationCount = OperationQueue.defaultMaxConcurrentOperationCount
    var isSuspended = false
    var qualityOfService = QualityOfService.default {
        didSet { loopTarget = Self.target(underlyingQueue, qualityOfService) }
    }
    var underlyingQueue: DispatchQueue? {
        didSet { loopTarget = Self.target(underlyingQueue, qualityOfService) }
    }
    /// Where loops run: ``underlyingQueue``, or a ``LoopBudget`` lane at ``qualityOfService``.
    private(set) var loopTarget = WorkerLoop.Target.lane(QualityOfService.default.dispatchQoS)
    /// Worker loops dispatched and not yet started; each takes ready work when it starts (see ``WorkerLoop``).
    var pendingLoops = 0
    /// Operations added and not completely finished (their DidFinish notifications included). While it is above
    /// zero the queue holds a reference to itself.
    var outstanding = 0
    /// Waiters for `outstanding` to reach zero.
    var idleWaiters: [IdleWaiter] = []

    /// Someone waiting for the queue to have nothing outstanding.
    enum IdleWaiter {
        case semaphore(DispatchSemaphore)
        case continuation(CheckedContinuation<Void, Never>)

        func resume() {
            switch self {
            case .semaphore(let semaphore): semaphore.signal()
            case .continuation(let continuation): continuation.resume()
            }
        }
    }
    /// Marks ``underlyingQueue`` (through a dispatch-specific value) so work can tell whether it runs there.
    var underlyingToken: UnderlyingQueueToken?
    /// The group whose private queue this is (see ``ProcedureQueue/owningGroup``).
    weak var owningGroup: GroupProcedure?
    var stallCheckScheduled = false
    /// Procedures that arrived with a dependency on no queue, looked at again after a delay (see
    /// `ProcedureQueue+StrandedDependencies.swift`).
    var strandedDependencies = StrandedDependencyWatch()
    /// Calls adding several procedures at once that are under way: a cycle check waits for them, since a cycle may
    /// run through procedures not added yet.
    var batchAdds = 0
    /// Procedures that arrived while a batch was being added, their enqueue tokens held until the last batch
    /// under way ends: cycles through them are looked for once, over everything the batch added.
    var heldArrivals: [Procedure.Arrival] = []
    /// Procedures whose conditions a worker loop evaluates next (an evaluation takes no slot).
    var evaluations = FIFO<Procedure>()
    /// Procedures whose conditions wait for the queue to be resumed.
    var deferredEvaluations: [Procedure] = []
    /// Procedures holding a slot (counted in `running`) whose mutually exclusive categories were granted (or
    /// whose request was withdrawn by a cancel): a worker loop starts them next.
    var granted = FIFO<GrantedProcedure>()

    // PERF(W1): one loop waiting to start at a time (`pendingLoops`), not one dispatch per ready operation: a burst
    // of work costs a few dispatches.

    /// Whether another ready operation may start now.
    var hasFreeSlot: Bool {
        !isSuspended && (maxConcurrentOperationCount < 0 || running < maxConcurrentOperationCount)
    }

    /// Nothing runs or is ready, yet something waits: possibly a dependency cycle.
    var isStalled: Bool {
        running == 0 && ready.isEmpty && evaluations.isEmpty && granted.isEmpty && waiting > 0 && !isSuspended
    }

    /// Adds `member` and counts it as outstanding; returns `true` when it is the only outstanding one (the queue
    /// must then take its reference to itself).
    mutating func insert(_ member: QueueMember) -> Bool {
        member.queueIndex = members.count
        members.append(member)
        outstanding += 1
        return outstanding == 1
    }

    /// Removes `member`; returns `false` when it was not a member.
    mutating func remove(_ member: QueueMember) -> Bool {
        let index = member.queueIndex
        guard index >= 0, index < members.count, members[index].identity == member.identity else { return false }
        member.queueIndex = -1
        let last = members.removeLast()
        if index < members.count {
            last.queueIndex = index
            members[index] = consume last
        }
        return true
    }

    /// Counts one member as completely finished; returns the waiters to wake when nothing is outstanding any more.
    mutating func settle() -> [IdleWaiter]? {
        outstanding -= 1
        guard outstanding == 0 else { return nil }
        defer { idleWaiters = [] }
        return idleWaiters
    }

    /// Takes the next ready member if a slot is free, counting it as running.
    mutating func popLaunchable() -> QueueMember? {
        guard hasFreeSlot, let member = ready.popFirst() else { return nil }
        running += 1
        return member
    }

    /// The next thing for a worker loop to do: evaluate conditions (no slot needed), start a procedure whose
    /// categories were granted (it holds its slot already), or start a ready member if a slot is free (counting it
    /// as running).
    mutating func popWork() -> WorkerLoop.Work? {
        if let procedure = evaluations.popFirst() { return .evaluate(procedure) }
        if !isSuspended, let granted = granted.popFirst() { return .start(.procedure(granted.procedure)) }
        return popLaunchable().map { .start($0) }
    }

    /// Reserves a worker loop if one must be dispatched: conditions wait to be evaluated, a granted procedure waits
    /// to start, or work is ready and a slot is free; and no loop is waiting to start. Counts the loop (in
    /// ``pendingLoops``) and returns where the caller must dispatch it; `nil`: no loop is needed.
    mutating func reserveLoop() -> WorkerLoop.Target? {
        guard pendingLoops == 0,
            !evaluations.isEmpty || (!granted.isEmpty && !isSuspended) || (!ready.isEmpty && hasFreeSlot)
        else { return nil }
        pendingLoops += 1
        return loopTarget
    }

    /// Reserves the dependency-cycle check if nothing can make progress and none is scheduled yet; returns whether
    /// the caller must schedule it.
    mutating func reserveStallCheck() -> Bool {
        guard isStalled, !stallCheckScheduled else { return false }
        stallCheckScheduled = true
        return true
    }

    // MARK: - Suspending and resuming

    /// What the queue does, outside its lock, once it is suspended.
    enum SuspendAction: Equatable {
        /// Nothing was granted and not started yet.
        case none
        /// These procedures held a slot and their granted categories but had not started: their slots were taken
        /// back and they wait in the ready list again; give their categories back.
        case giveBackLocks([Procedure])
    }

    /// What the queue does, outside its lock, once it is resumed.
    struct ResumeAction: Equatable {
        /// Where to dispatch the worker loop reserved for the work the suspension held up (`nil`: none needed).
        var spawnLoopOn: WorkerLoop.Target?
        /// Whether to schedule a dependency-cycle check (reserved: nothing can make progress).
        var scheduleStallCheck: Bool
    }

    /// What the queue does, outside its lock, for a procedure whose mutually exclusive categories were granted (or
    /// whose request was withdrawn by a cancel).
    enum LocksGrantedAction: Equatable {
        /// A worker loop will start it (one is waiting to start, or the loop finishing on this thread picks it).
        case none
        /// Dispatch the worker loop reserved to start it.
        case spawnLoop(WorkerLoop.Target)
        /// The queue is suspended: its slot was taken back and it waits in the ready list again; give its
        /// categories back.
        case giveBackLocks
    }

    /// Event: the queue is suspended. Granted procedures not started yet give their slots back and return to the
    /// ready list (see ``takeGrantedBack()``).
    mutating func suspend() -> SuspendAction {
        isSuspended = true
        let taken = takeGrantedBack()
        return taken.isEmpty ? .none : .giveBackLocks(taken)
    }

    /// Event: the queue is resumed. Evaluations deferred by the suspension are queued; a loop is reserved if work
    /// waits, and a cycle check if nothing can make progress. All in one critical section.
    mutating func resume() -> ResumeAction {
        isSuspended = false
        for procedure in deferredEvaluations { evaluations.append(procedure) }
        deferredEvaluations = []
        return ResumeAction(spawnLoopOn: reserveLoop(), scheduleStallCheck: reserveStallCheck())
    }

    /// Event: `procedure`, holding a slot, had its categories granted (or its request withdrawn). It waits for a
    /// worker loop in ``granted``; when `loopWillPick`, the loop finishing on this thread takes it, so none is
    /// reserved. On a suspended queue it gives its slot back and returns to the ready list.
    mutating func locksGranted(_ procedure: GrantedProcedure, loopWillPick: Bool) -> LocksGrantedAction {
        if isSuspended {
            running -= 1
            ready.append(.procedure(procedure.procedure), priority: procedure.priority)
            return .giveBackLocks
        }
        granted.append(procedure)
        guard !loopWillPick, let target = reserveLoop() else { return .none }
        return .spawnLoop(target)
    }

    /// Suspending: takes back the slots of granted procedures not started yet and returns them to the ready list;
    /// returns them so the caller gives their categories back.
    private mutating func takeGrantedBack() -> [Procedure] {
        var taken: [Procedure] = []
        while let granted = granted.popFirst() {
            running -= 1
            ready.append(.procedure(granted.procedure), priority: granted.priority)
            taken.append(granted.procedure)
        }
        return taken
    }

    private static func target(_ underlying: DispatchQueue?, _ quality: QualityOfService) -> WorkerLoop.Target {
        if let underlying { return .underlying(underlying) }
        return .lane(quality.dispatchQoS)
    }
}

extension QualityOfService {
    /// The Dispatch quality of service for this value.
    var dispatchQoS: DispatchQoS.QoSClass {
        switch self {
        case .userInteractive: .userInteractive
        case .userInitiated: .userInitiated
        case .utility: .utility
        case .background: .background
        case .default: .default
        @unknown default: .default
        }
    }
}

/// The dispatch-specific value a ``ProcedureQueue`` sets on its underlying queue.
final class UnderlyingQueueToken: Sendable {}

/// A procedure whose mutually exclusive categories were granted, waiting in ``ProcedureQueueState/granted`` for a
/// worker loop, with its `queuePriority` as read before the queue's lock was taken (`queuePriority` is open, so a
/// subclass's getter is user code and never runs under the lock; see `LOCKING.md`).
struct GrantedProcedure {
    let procedure: Procedure
    let priority: Operation.QueuePriority
}
