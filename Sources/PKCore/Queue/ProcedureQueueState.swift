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
    var qualityOfService = QualityOfService.default
    var underlyingQueue: DispatchQueue?
    /// Marks ``underlyingQueue`` (through a dispatch-specific value) so work can tell whether it runs there.
    var underlyingToken: UnderlyingQueueToken?
    var name: String?
    weak var delegate: (any ProcedureQueueDelegate)?
    var stallCheckScheduled = false
    /// Procedures whose conditions wait for the queue to be resumed.
    var deferredEvaluations: [Procedure] = []
    /// Procedures that gave their locks back while the queue was suspended; they ask again on resume.
    var parkedForLocks: [Procedure] = []

    /// Whether another ready operation may start now.
    var hasFreeSlot: Bool {
        !isSuspended && (maxConcurrentOperationCount < 0 || running < maxConcurrentOperationCount)
    }

    /// Nothing runs or is ready, yet something waits: possibly a dependency cycle.
    var isStalled: Bool {
        running == 0 && ready.isEmpty && waiting > 0 && !isSuspended
    }

    mutating func insert(_ member: QueueMember) {
        member.queueIndex = members.count
        members.append(member)
    }

    /// Removes `member`; returns `false` when it was not a member.
    mutating func remove(_ member: QueueMember) -> Bool {
        let index = member.queueIndex
        guard index >= 0, index < members.count, members[index].operation === member.operation else { return false }
        let last = members.removeLast()
        if index < members.count {
            members[index] = last
            last.queueIndex = index
        }
        member.queueIndex = -1
        return true
    }

    /// Takes the next ready member if a slot is free, counting it as running.
    mutating func popLaunchable() -> (QueueMember, DispatchQueue)? {
        guard hasFreeSlot, let member = ready.popFirst() else { return nil }
        running += 1
        return (member, dispatchQueue)
    }

    var dispatchQueue: DispatchQueue {
        underlyingQueue ?? DispatchQueue.global(qos: qualityOfService.dispatchQoS)
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
