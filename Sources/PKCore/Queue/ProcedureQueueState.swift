import Foundation

/// The scheduler's bookkeeping for one ``ProcedureQueue``, guarded by the queue's mutex.
struct ProcedureQueueState {
    /// Every unfinished operation on the queue, held strongly; each knows its index (swap-remove, no hashing).
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
    var name: String?
    /// The group whose private queue this is (see ``ProcedureQueue/owningGroup``).
    weak var owningGroup: GroupProcedure?
    var stallCheckScheduled = false
    /// Calls adding several procedures at once that are under way: a cycle check waits for them, since a cycle may
    /// run through procedures not added yet.
    var batchAdds = 0
    /// Procedures whose conditions a worker loop evaluates next (an evaluation takes no slot).
    var evaluations = FIFO<Procedure>()
    /// Procedures whose conditions wait for the queue to be resumed.
    var deferredEvaluations: [Procedure] = []
    /// Procedures holding a slot (counted in `running`) whose mutually exclusive categories were granted (or
    /// whose request was withdrawn by a cancel): a worker loop starts them next.
    var granted = FIFO<Procedure>()

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
        if !isSuspended, let procedure = granted.popFirst() { return .start(.procedure(procedure)) }
        return popLaunchable().map { .start($0) }
    }

    /// Whether a worker loop must be dispatched: conditions wait to be evaluated, a granted procedure waits to
    /// start, or work is ready and a slot is free; and no loop is waiting to start. Counts the loop the caller then
    /// dispatches.
    mutating func needsLoop() -> Bool {
        guard pendingLoops == 0,
            !evaluations.isEmpty || (!granted.isEmpty && !isSuspended) || (!ready.isEmpty && hasFreeSlot)
        else { return false }
        pendingLoops += 1
        return true
    }

    /// Suspending: takes back the slots of granted procedures not started yet and returns them to the ready list;
    /// returns them so the caller gives their categories back.
    mutating func takeGrantedBack() -> [Procedure] {
        var taken: [Procedure] = []
        while let procedure = granted.popFirst() {
            running -= 1
            ready.append(.procedure(procedure), priority: procedure.queuePriority)
            taken.append(procedure)
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
