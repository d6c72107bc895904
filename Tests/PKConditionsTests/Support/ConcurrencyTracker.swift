import Synchronization

/// Counts how many pieces of work run at once, and the most ever seen.
final class ConcurrencyTracker: Sendable {
    private let current = Atomic<Int>(0)
    private let maximum = Atomic<Int>(0)
    private let total = Atomic<Int>(0)

    init() {}

    func enter() {
        total.add(1, ordering: .sequentiallyConsistent)
        let now = current.add(1, ordering: .sequentiallyConsistent).newValue
        var seen = maximum.load(ordering: .sequentiallyConsistent)
        while now > seen {
            let (exchanged, original) = maximum.compareExchange(
                expected: seen, desired: now, ordering: .sequentiallyConsistent)
            if exchanged { break }
            seen = original
        }
    }

    func leave() {
        current.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// The most pieces of work seen running at once.
    var maxConcurrent: Int { maximum.load(ordering: .sequentiallyConsistent) }

    /// How many pieces of work entered.
    var entered: Int { total.load(ordering: .sequentiallyConsistent) }
}
