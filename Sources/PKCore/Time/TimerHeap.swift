import Dispatch
import Synchronization

/// The timers of ``SystemClock``: a deadline-ordered heap of actions watched by one dispatch timer source.
///
/// A timeout observer on every procedure schedules and cancels one action per procedure; a dispatch source each
/// made that cost about twice a bare procedure (benchmark W12). Here scheduling is a lock and a heap insertion, and
/// the source is re-armed only when the earliest deadline moves earlier; cancelling removes the entry at once
/// (its index is kept in it), so cancelled long timers hold no memory. When the source fires, every due action is
/// taken out under the lock and sent, outside it, to the heap's action queue, where they run one at a time in
/// deadline order.
///
/// The source's handler and the actions run on private serial queues, not on the global queues: Dispatch gives a
/// private serial queue a thread even when every thread of its global pool is busy, and gives a global queue's
/// block none while they run. A timeout exists to stop work that will not stop by itself, and that work may be
/// spinning on every core: sent to a global queue, the timeout waited for the work it was meant to stop (a
/// procedure spinning until its 1 ms timeout was held for 20 s, until its own cap). The cost: one slow action
/// delays the actions due after it, so actions must be short (cancelling or finishing a procedure is).
///
/// Thread-safe: the heap and every entry's index and action are guarded by `state`'s lock; no action runs under it.
/// The source is re-armed under that lock (a non-blocking Dispatch call), so re-arms happen in deadline order.
final class TimerHeap: @unchecked Sendable {
    // @unchecked Sendable: `source` is a dispatch source (thread-safe, re-armed only under `state`'s lock); the
    // other stored properties are immutable or the lock itself.

    /// One scheduled action, and the handle its caller cancels.
    final class Entry: ScheduledAction, @unchecked Sendable {
        // @unchecked Sendable: `index` and `action` are read and written only under the owning heap's lock;
        // `deadline` and `heap` are immutable.
        fileprivate let deadline: UInt64
        fileprivate let heap: TimerHeap
        /// The entry's position in the heap; `-1` once it left (fired or cancelled).
        fileprivate var index = -1
        fileprivate var action: (@Sendable () -> Void)?

        fileprivate init(deadline: UInt64, heap: TimerHeap, action: @escaping @Sendable () -> Void) {
            self.deadline = deadline
            self.heap = heap
            self.action = action
        }

        func cancel() {
            heap.cancel(self)
        }
    }

    fileprivate struct State {
        var entries: [Entry] = []
        /// The deadline the source is armed for (`UInt64.max`: not armed).
        var armed = UInt64.max
    }

    // PERF(W12): every worker schedules and cancels here, so it is contended briefly and often.
    private let state = ContendedMutex(State())
    private let source: any DispatchSourceTimer
    /// Where due actions run, one at a time.
    private let actions: DispatchQueue

    private static let heaps: [DispatchQoS.QoSClass: TimerHeap] = {
        let classes: [DispatchQoS.QoSClass] = [.background, .utility, .default, .userInitiated, .userInteractive]
        return Dictionary(uniqueKeysWithValues: classes.map { ($0, TimerHeap(qos: $0)) })
    }()

    /// The heap whose actions run at `qos`.
    static func shared(for qos: DispatchQoS.QoSClass) -> TimerHeap {
        heaps[qos] ?? heaps[.default]!
    }

    /// A heap of its own; ``shared(for:)`` has the clock's. Internal for tests.
    init(qos: DispatchQoS.QoSClass) {
        let dispatchQoS = DispatchQoS(qosClass: qos, relativePriority: 0)
        actions = DispatchQueue(label: "PKCore.SystemClock.actions", qos: dispatchQoS)
        let handlerQueue = DispatchQueue(label: "PKCore.TimerHeap", qos: dispatchQoS)
        source = DispatchSource.makeTimerSource(queue: handlerQueue)
        source.setEventHandler { [unowned self] in fire() }
        source.schedule(deadline: .distantFuture, repeating: .never, leeway: .milliseconds(1))
        source.resume()
    }

    /// How many actions wait; for tests.
    var count: Int { state.withLock { $0.entries.count } }

    /// Whether the heap is ordered and every entry knows its index; for tests.
    var isConsistent: Bool {
        state.withLock { state in
            state.entries.indices.allSatisfy { index in
                let entry = state.entries[index]
                let parentOK = index == 0 || state.entries[(index - 1) / 2].deadline <= entry.deadline
                return entry.index == index && parentOK
            }
        }
    }

    /// Schedules `action` for `deadline` (uptime nanoseconds).
    func schedule(deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> Entry {
        let entry = Entry(deadline: deadline, heap: self, action: action)
        state.withLock { state in
            state.insert(entry)
            guard deadline < state.armed else { return }
            state.armed = deadline
            arm(for: deadline)
        }
        return entry
    }

    private func cancel(_ entry: Entry) {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            if entry.index >= 0 { state.remove(at: entry.index) }
            defer { entry.action = nil }
            return entry.action
        }
        // Released here, outside the lock: the action may hold the last reference to anything.
        _ = action
    }

    private func arm(for deadline: UInt64) {
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: deadline), repeating: .never, leeway: .milliseconds(1))
    }

    /// The source fired: takes every due action out, re-arms for the next deadline, runs the actions.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [@Sendable () -> Void] in
            var due: [@Sendable () -> Void] = []
            while let first = state.entries.first, first.deadline <= now {
                state.remove(at: 0)
                if let action = first.action { due.append(action) }
                first.action = nil
            }
            state.armed = state.entries.first?.deadline ?? UInt64.max
            if state.armed != UInt64.max { arm(for: state.armed) }
            return due
        }
        guard !due.isEmpty else { return }
        actions.async {
            for action in due { action() }
        }
    }
}

extension TimerHeap.State {

    /// Adds `entry`, keeping the heap ordered by deadline.
    fileprivate mutating func insert(_ entry: TimerHeap.Entry) {
        entry.index = entries.count
        entries.append(entry)
        siftUp(entries.count - 1)
    }

    /// Removes the entry at `index`.
    fileprivate mutating func remove(at index: Int) {
        let removed = entries[index]
        let last = entries.count - 1
        if index != last {
            entries.swapAt(index, last)
            entries[index].index = index
        }
        entries.removeLast()
        removed.index = -1
        guard index < entries.count else { return }
        siftDown(index)
        siftUp(index)
    }

    private mutating func siftUp(_ start: Int) {
        var child = start
        while child > 0 {
            let parent = (child - 1) / 2
            guard entries[child].deadline < entries[parent].deadline else { return }
            swap(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            guard left < entries.count else { return }
            let right = left + 1
            var smallest = left
            if right < entries.count, entries[right].deadline < entries[left].deadline { smallest = right }
            guard entries[smallest].deadline < entries[parent].deadline else { return }
            swap(parent, smallest)
            parent = smallest
        }
    }

    private mutating func swap(_ a: Int, _ b: Int) {
        entries.swapAt(a, b)
        entries[a].index = a
        entries[b].index = b
    }
}
