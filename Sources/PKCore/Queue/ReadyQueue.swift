import Foundation

/// An operation on a queue: a procedure, or a plain operation's node.
enum QueueMember {
    case procedure(Procedure)
    case operation(OperationNode)

    var operation: Operation {
        switch self {
        case .procedure(let procedure): procedure
        case .operation(let node): node.operation
        }
    }

    /// The member's identity, read without retaining it.
    var identity: ObjectIdentifier {
        switch self {
        case .procedure(let procedure): ObjectIdentifier(procedure)
        case .operation(let node): ObjectIdentifier(node)
        }
    }

    /// The member's slot in its queue's member list; guarded by that queue's mutex.
    var queueIndex: Int {
        get {
            switch self {
            case .procedure(let procedure): procedure.queueIndex
            case .operation(let node): node.queueIndex
            }
        }
        nonmutating set {
            switch self {
            case .procedure(let procedure): procedure.queueIndex = newValue
            case .operation(let node): node.queueIndex = newValue
            }
        }
    }

    func start() {
        switch self {
        case .procedure(let procedure): procedure.start()
        case .operation(let node): node.start()
        }
    }
}

/// First-in-first-out lists, one per `Operation.QueuePriority`, served highest priority first.
struct ReadyQueue {
    private var lists = Array(repeating: FIFO<QueueMember>(), count: 5)
    private(set) var count = 0

    var isEmpty: Bool { count == 0 }

    private static func index(for priority: Operation.QueuePriority) -> Int {
        switch priority {
        case .veryHigh: 0
        case .high: 1
        case .normal: 2
        case .low: 3
        case .veryLow: 4
        @unknown default: 2
        }
    }

    mutating func append(_ item: QueueMember, priority: Operation.QueuePriority) {
        lists[Self.index(for: priority)].append(item)
        count += 1
    }

    /// Removes and returns, in order, the members for which `shouldRemove` is true.
    mutating func removeAll(where shouldRemove: (QueueMember) -> Bool) -> [QueueMember] {
        var removed: [QueueMember] = []
        for index in lists.indices { removed += lists[index].removeAll(where: shouldRemove) }
        count -= removed.count
        return removed
    }

    mutating func popFirst() -> QueueMember? {
        guard count > 0 else { return nil }
        for index in lists.indices {
            if let member = lists[index].popFirst() {
                count -= 1
                return member
            }
        }
        return nil
    }
}
