import Foundation

/// Work a queue has been told it may start.
enum ReadyItem {
    case procedure(Procedure)
    case operation(OperationNode)
}

/// First-in-first-out lists, one per `Operation.QueuePriority`, served highest priority first.
struct ReadyQueue {
    private var lists: [[ReadyItem]] = Array(repeating: [], count: 5)
    private var heads: [Int] = Array(repeating: 0, count: 5)
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

    mutating func append(_ item: ReadyItem, priority: Operation.QueuePriority) {
        lists[Self.index(for: priority)].append(item)
        count += 1
    }

    mutating func popFirst() -> ReadyItem? {
        guard count > 0 else { return nil }
        for index in 0..<5 where heads[index] < lists[index].count {
            let item = lists[index][heads[index]]
            heads[index] += 1
            if heads[index] == lists[index].count {
                lists[index].removeAll(keepingCapacity: true)
                heads[index] = 0
            } else if heads[index] >= 1024 && heads[index] * 2 >= lists[index].count {
                lists[index].removeFirst(heads[index])
                heads[index] = 0
            }
            count -= 1
            return item
        }
        return nil
    }
}
