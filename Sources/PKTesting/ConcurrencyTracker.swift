import Synchronization

/// Counts how many pieces of work run at once, and the most ever seen: call ``enter()`` when work starts and
/// ``leave()`` when it ends (for example at the start and end of `execute()`).
///
/// Thread-safe (atomics); use it to check `maxConcurrentOperationCount` or mutual exclusion.
public final class ConcurrencyTracker: Sendable {
    private let current = Atomic<Int>(0)
    private let maximum = Atomic<Int>(0)
    private let total = Atomic<Int>(0)

    /// Creates a tracker with nothing running.
    public init() {}

    /// Records that a piece of work started.
    public func enter() {
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

    /// Records that a piece of work ended.
    public func leave() {
        current.subtract(1, ordering: .sequentiallyConsistent)
    }

    /// The most pieces of work seen running at once.
    public var maxConcurrent: Int { maximum.load(ordering: .sequentiallyConsistent) }

    /// How many pieces of work entered.
    public var entered: Int { total.load(ordering: .sequentiallyConsistent) }
}
