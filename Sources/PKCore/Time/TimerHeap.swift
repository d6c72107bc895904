import Dispatch
import Synchronization

/// The timers of ``SystemClock``: a deadline-ordered heap of entries watched by one dispatch timer source.
///
/// A timeout observer on every procedure schedules and cancels one timer per procedure; a dispatch source each
/// made that cost about twice a bare procedure (benchmark W12). Here scheduling is a lock and a heap insertion, and
/// the source is re-armed only when the earliest deadline moves earlier; cancelling removes the entry at once
/// (its index is kept in it), so cancelled long timers hold no memory. When the source fires, every due entry's
/// work is taken out under the lock and sent, outside it, to the heap's action queue, where it runs one at a time
/// in deadline order.
///
/// An entry carries either a closure (``SystemClock/schedule(after:_:)``) or a procedure to time out
/// (``ScheduledTimer/timeout(of:clock:)``): the latter is made once, by the timeout observer, and reused for its
/// schedule, so a timed procedure costs no allocation and no closure context when its timer starts.
///
/// The source's handler and the actions run on private serial queues, not on the global queues: Dispatch gives a
/// private serial queue a thread even when every thread of its global pool is busy, and gives a global queue's
/// block none while they run. A timeout exists to stop work that will not stop by itself, and that work may be
/// spinning on every core: sent to a global queue, the timeout waited for the work it was meant to stop (a
/// procedure spinning until its 1 ms timeout was held for 20 s, until its own cap). The cost: one slow action
/// delays the actions due after it, so actions must be short (cancelling or finishing a procedure is).
///
/// Thread-safe: the heap and every entry's deadline, index and work are guarded by `state`'s lock; no action runs
/// under it. The source is re-armed under that lock (a non-blocking Dispatch call), so re-arms happen in deadline
/// order.
final class TimerHeap: @unchecked Sendable {
    // @unchecked Sendable: `source` is a dispatch source (thread-safe, re-armed only under `state`'s lock); the
    // other stored properties are immutable or the lock itself.

    typealias Entry = ScheduledTimer

    fileprivate struct State {
        var entries: [ScheduledTimer] = []
        /// The deadline the source is armed for (`UInt64.max`: not armed).
        var armed = UInt64.max
    }

    // PERF(W12): every worker schedules and cancels here, so it is contended briefly and often.
    private let state = ContendedMutex(State())
    private let source: any DispatchSourceTimer
    /// Where due actions run, one at a time.
    private let actions: DispatchQueue

    private static let background = TimerHeap(qos: .background)
    private static let utility = TimerHeap(qos: .utility)
    private static let `default` = TimerHeap(qos: .default)
    private static let userInitiated = TimerHeap(qos: .userInitiated)
    private static let userInteractive = TimerHeap(qos: .userInteractive)

    /// The heap whose actions run at `qos` (made when first asked for).
    static func shared(for qos: DispatchQoS.QoSClass) -> TimerHeap {
        // PERF(W12): a switch over lazily made statics; a dictionary lookup cost a quarter of a timer's start.
        switch qos {
        case .background: background
        case .utility: utility
        case .userInitiated: userInitiated
        case .userInteractive: userInteractive
        case .default, .unspecified: `default`
        @unknown default: `default`
        }
    }

    /// A heap of its own; ``shared(for:)`` has the clock's. Internal for tests.
    init(qos: DispatchQoS.QoSClass) {
        let dispatchQoS = DispatchQoS(qosClass: qos, relativePriority: 0)
        actions = DispatchQueue(label: "PKCore.SystemClock.actions", qos: dispatchQoS)
        let handlerQueue = DispatchQueue(label: "PKCore.TimerHeap", qos: dispatchQoS)
        source = DispatchSource.makeTimerSource(queue: handlerQueue)
        // Weak: a heap released while armed (only tests release one) must not have its handler run on freed memory.
        source.setEventHandler { [weak self] in self?.fire() }
        source.schedule(deadline: .distantFuture, repeating: .never, leeway: .milliseconds(1))
        source.resume()
    }

    deinit {
        source.cancel()
    }

    /// How many entries wait; for tests.
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

    /// The uptime deadline `seconds` from now (now for zero, negative or NaN; far in the future for huge delays).
    static func deadline(afterSeconds seconds: Double) -> UInt64 {
        let nanoseconds = seconds > 0 ? UInt64(min(seconds * 1e9, Double(UInt64.max / 4))) : 0
        return DispatchTime.now().uptimeNanoseconds &+ nanoseconds
    }

    /// Schedules `action` for `deadline` (uptime nanoseconds).
    func schedule(deadline: UInt64, _ action: @escaping @Sendable () -> Void) -> ScheduledTimer {
        let entry = ScheduledTimer(heap: self, work: .action(action))
        state.withLock { state in
            entry.deadline = deadline
            insert(entry, into: &state)
        }
        return entry
    }

    /// Starts `entry`, an unstarted timeout, for `procedure` at `deadline`; `false` when it was started before.
    fileprivate func start(_ entry: ScheduledTimer, for procedure: Procedure, deadline: UInt64) -> Bool {
        state.withLock { state in
            guard case .unstartedTimeout(let delay) = entry.work else { return false }
            entry.work = .timeout(procedure, delay)
            entry.deadline = deadline
            insert(entry, into: &state)
            return true
        }
    }

    private func insert(_ entry: ScheduledTimer, into state: inout State) {
        state.insert(entry)
        guard entry.deadline < state.armed else { return }
        state.armed = entry.deadline
        arm(for: entry.deadline)
    }

    /// Takes `entry` out and lets go of its work (outside the lock: it may hold the last reference to anything).
    /// With `procedure`, only a timeout of that procedure is stopped.
    fileprivate func cancel(_ entry: ScheduledTimer, onlyFor procedure: Procedure? = nil) {
        let work = state.withLock { state -> ScheduledTimer.Work in
            if let procedure {
                guard case .timeout(let timed, _) = entry.work, timed === procedure else { return .none }
            }
            if entry.index >= 0 { state.remove(at: entry.index) }
            switch entry.work {
            case .unstartedTimeout: return .none  // never started: it may still start
            case .none, .action, .timeout:
                defer { entry.work = .none }
                return entry.work
            }
        }
        _ = work
    }

    /// Whether `entry` waits in the heap; for tests.
    fileprivate func isScheduled(_ entry: ScheduledTimer) -> Bool {
        state.withLock { _ in entry.index >= 0 }
    }

    private func arm(for deadline: UInt64) {
        source.schedule(
            deadline: DispatchTime(uptimeNanoseconds: deadline), repeating: .never, leeway: .milliseconds(1))
    }

    /// The source fired: takes every due entry's work out, re-arms for the next deadline, runs the work.
    private func fire() {
        let now = DispatchTime.now().uptimeNanoseconds
        let due = state.withLock { state -> [ScheduledTimer.Work] in
            var due: [ScheduledTimer.Work] = []
            while let first = state.entries.first, first.deadline <= now {
                state.remove(at: 0)
                switch first.work {
                case .none, .unstartedTimeout: break
                case .action, .timeout: due.append(first.work)
                }
                first.work = .none
            }
            state.armed = state.entries.first?.deadline ?? UInt64.max
            if state.armed != UInt64.max { arm(for: state.armed) }
            return due
        }
        guard !due.isEmpty else { return }
        actions.async {
            for work in due { work.run() }
        }
    }
}

/// One timer of ``SystemClock``'s heap, and the handle its owner cancels: a scheduled closure, or a procedure's
/// timeout.
///
/// A timeout (``timeout(of:clock:)``) is made unstarted, carrying only its delay; ``start(for:afterSeconds:)``
/// schedules it once, for one procedure, which it holds until it fires or is stopped. When it fires and the
/// procedure has neither finished nor been cancelled, the procedure is cancelled with
/// ``ProcedureKitError/timedOut(with:)`` carrying the delay. No closure is involved: PKObservers'
/// `TimeoutObserver` makes one per observer value and so pays one allocation per timed procedure, when the
/// observer is made (PERF(W12)).
package final class ScheduledTimer: ScheduledAction, @unchecked Sendable {
    // @unchecked Sendable: `deadline`, `index` and `work` are read and written only under the owning heap's lock
    // (`TimerHeap.state`); `heap` is immutable.

    /// What the timer does when it fires.
    fileprivate enum Work {
        /// Nothing: it fired, or was cancelled.
        case none
        case action(@Sendable () -> Void)
        /// A timeout not started yet.
        case unstartedTimeout(Delay)
        case timeout(Procedure, Delay)

        /// Runs the work, on the heap's action queue.
        func run() {
            switch self {
            case .none, .unstartedTimeout:
                break
            case .action(let action):
                action()
            case .timeout(let procedure, let delay):
                guard !procedure.isFinished, !procedure.isCancelled else { return }
                procedure.cancel(with: ProcedureKitError.timedOut(with: delay))
            }
        }
    }

    fileprivate let heap: TimerHeap
    fileprivate var deadline: UInt64 = 0
    /// The entry's position in the heap; `-1` while it is not in it (unstarted, fired or cancelled).
    fileprivate var index = -1
    fileprivate var work: Work

    fileprivate init(heap: TimerHeap, work: Work) {
        self.heap = heap
        self.work = work
    }

    /// An unstarted timeout of `delay` on `clock`'s heap, when `clock` is a ``SystemClock``; `nil` for any other
    /// clock.
    package static func timeout(of delay: Delay, clock: any ProcedureClock) -> ScheduledTimer? {
        guard let qos = clock.systemClockQoS else { return nil }
        return ScheduledTimer(heap: TimerHeap.shared(for: qos), work: .unstartedTimeout(delay))
    }

    /// An unstarted timeout on a heap of the caller's; for tests.
    static func timeout(of delay: Delay, heap: TimerHeap) -> ScheduledTimer {
        ScheduledTimer(heap: heap, work: .unstartedTimeout(delay))
    }

    /// Starts this timeout for `procedure`, to fire `seconds` from now (see ``SystemClock/schedule(after:_:)``
    /// for zero or negative delays). `false`, and nothing started, when it is not an unstarted timeout (it was
    /// started before, for this procedure or another).
    package func start(for procedure: Procedure, afterSeconds seconds: Double) -> Bool {
        heap.start(self, for: procedure, deadline: TimerHeap.deadline(afterSeconds: seconds))
    }

    /// Stops this timeout if it is running for `procedure`, and lets go of the procedure; otherwise does nothing.
    package func stop(for procedure: Procedure) {
        heap.cancel(self, onlyFor: procedure)
    }

    /// Whether it waits to fire; for tests.
    package var isScheduled: Bool { heap.isScheduled(self) }

    /// Stops the timer (a closure's, or a started timeout's) and releases its work; an unstarted timeout is left
    /// as it is.
    package func cancel() {
        heap.cancel(self)
    }
}

extension ProcedureClock {
    /// The quality of service of a ``SystemClock``; `nil` for any other clock. A metadata comparison, not a dynamic
    /// cast (PERF(W12): `as? SystemClock` cost half a timer's start).
    fileprivate var systemClockQoS: DispatchQoS.QoSClass? {
        guard Self.self == SystemClock.self else { return nil }
        return unsafeBitCast(self, to: SystemClock.self).qualityOfService
    }
}

extension TimerHeap.State {

    /// Adds `entry`, keeping the heap ordered by deadline.
    fileprivate mutating func insert(_ entry: ScheduledTimer) {
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
