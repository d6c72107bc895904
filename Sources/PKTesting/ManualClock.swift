import Foundation
import PKCore

/// A `ProcedureClock` for tests: its time moves only when the test calls `advance(by:)` (or
/// ``advance(to:)``, ``advanceToNextAction()``), and the actions whose time has come run then, synchronously on
/// the advancing thread.
///
/// ```swift
/// let clock = ManualClock()
/// let delay = DelayProcedure(by: 10, clock: clock)
/// queue.add(procedure: delay)
/// #expect(clock.waitForScheduledActions(count: 1))   // the delay has started waiting
/// clock.advance(by: .seconds(10))                   // …and finishes now
/// ```
///
/// Inside an advance, due actions run one at a time in deadline order (actions with the same deadline in the
/// order they were scheduled), and ``now`` reads each action's deadline while it runs. An action scheduled while
/// advancing runs in the same advance if its deadline is within it. An action scheduled with a zero or negative
/// delay is due at once but, like every action, runs only at the next advance (`advance(by:)` with `.zero`
/// will do). A cancelled action is dropped at once and never runs.
///
/// Thread-safe: schedule, cancel and read from any thread. Advancing from two threads at once is allowed; each
/// due action still runs exactly once.
public final class ManualClock: ProcedureClock {

    private struct Entry {
        let id: UInt64
        let deadline: Date
        let action: @Sendable () -> Void
    }

    private struct State {
        var now: Date
        var nextID: UInt64 = 0
        /// Pending actions, kept sorted by deadline and then by id.
        var pending: [Entry] = []
        var totalScheduled = 0
    }

    private let state: PKMutex<State>

    /// Creates a clock reading `now` (by default 1 January 2001, 00:00:00 UTC). A NaN date, which no deadline is
    /// ever after or before (nothing scheduled would ever fall due), counts as the default.
    public init(now: Date = Date(timeIntervalSinceReferenceDate: 0)) {
        let start = now.timeIntervalSinceReferenceDate.isNaN ? Date(timeIntervalSinceReferenceDate: 0) : now
        state = PKMutex(State(now: start))
    }

    // MARK: - ProcedureClock

    /// The clock's current time; changed only by advancing.
    public var now: Date { state.withLock { $0.now } }

    /// Keeps `action` until an advance reaches `now + delay`. Never runs it on the calling thread.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        let seconds = delay.timeInterval
        let id = state.withLock { state -> UInt64 in
            let id = state.nextID
            state.nextID += 1
            state.totalScheduled += 1
            let entry = Entry(id: id, deadline: state.now.addingTimeInterval(Swift.max(0, seconds)), action: action)
            let index = state.pending.firstIndex { $0.deadline > entry.deadline } ?? state.pending.endIndex
            state.pending.insert(entry, at: index)
            return id
        }
        return ManualScheduledAction(clock: self, id: id)
    }

    // MARK: - Inspecting

    /// The number of actions scheduled and neither run nor cancelled.
    public var scheduledActionCount: Int { state.withLock { $0.pending.count } }

    /// The number of actions ever scheduled on this clock, including those that ran or were cancelled.
    public var totalScheduledActionCount: Int { state.withLock { $0.totalScheduled } }

    /// The deadline of the earliest pending action, if any.
    public var nextDeadline: Date? { state.withLock { $0.pending.first?.deadline } }

    /// Blocks until at least `count` actions are pending, or `timeout` seconds of real time pass; returns whether
    /// they are. Polls with short sleeps; use it to wait until the code under test has scheduled something.
    public func waitForScheduledActions(count: Int = 1, timeout: TimeInterval = 20) -> Bool {
        let deadline = Date().addingTimeInterval(waitableSeconds(timeout))
        while scheduledActionCount < count {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.001)
        }
        return true
    }

    /// Suspends until at least `count` actions are pending, or `timeout` seconds of real time pass; returns
    /// whether they are.
    public func waitForScheduledActions(count: Int = 1, timeout: TimeInterval = 20) async -> Bool {
        let deadline = Date().addingTimeInterval(waitableSeconds(timeout))
        while scheduledActionCount < count {
            if Date() >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(1))
        }
        return true
    }

    // MARK: - Advancing

    /// Moves time forward by `duration` (a negative duration counts as zero), running every action that falls
    /// due on the way, in deadline order, on the calling thread.
    public func advance(by duration: Duration) {
        let seconds = duration.timeInterval
        advance(to: now.addingTimeInterval(Swift.max(0, seconds)))
    }

    /// Moves time forward by `seconds`. See the `Duration` overload.
    public func advance(by seconds: TimeInterval) {
        advance(to: now.addingTimeInterval(Swift.max(0, seconds)))
    }

    /// Moves time forward to `date` (never backwards), running every action that falls due on the way, in
    /// deadline order, on the calling thread. A NaN date moves nothing.
    public func advance(to date: Date) {
        guard !date.timeIntervalSinceReferenceDate.isNaN else { return }
        while let action = takeDue(upTo: date) {
            action()
        }
        state.withLock { $0.now = Swift.max($0.now, date) }
    }

    /// Moves time forward to the earliest pending deadline and runs the actions due then; returns `false` (and
    /// leaves time alone) when nothing is pending.
    @discardableResult
    public func advanceToNextAction() -> Bool {
        guard let deadline = nextDeadline else { return false }
        advance(to: deadline)
        return true
    }

    /// Removes and returns the earliest action due by `date`, moving the time to its deadline.
    private func takeDue(upTo date: Date) -> (@Sendable () -> Void)? {
        state.withLock { state in
            guard let first = state.pending.first, first.deadline <= date else { return nil }
            state.pending.removeFirst()
            state.now = Swift.max(state.now, first.deadline)
            return first.action
        }
    }

    fileprivate func cancel(id: UInt64) {
        state.withLock { $0.pending.removeAll { $0.id == id } }
    }
}

/// An action scheduled on a ``ManualClock``; cancelling it removes it from the clock.
private struct ManualScheduledAction: ScheduledAction {
    weak var clock: ManualClock?
    let id: UInt64

    func cancel() {
        clock?.cancel(id: id)
    }
}
