import Foundation
import PKCore

/// Cancels a procedure that is still running when a time limit passes.
///
/// The timer starts in the procedure's WillExecute phase, just before `execute()`; for ``init(until:clock:)`` the
/// interval is worked out at that moment. A zero, negative or NaN interval starts no timer; an infinite or huge one
/// (beyond about 31,000 years) is that long, never a trap. When the timer fires and the
/// procedure is neither finished nor cancelled, it is cancelled with ``/PKCore/ProcedureKitError/timedOut(with:)``
/// carrying this observer's delay. The observer only cancels: finishing is up to the procedure, and one that ignores
/// cancellation finishes later, still carrying the timeout error.
///
/// - A procedure cancelled before its timer fires keeps its own cancellation; one that finishes in time gets no
///   timeout error (a cancel after finishing began is ignored).
/// - With several timeout observers on one procedure, the earliest wins and its delay is in the error.
/// - One observer value attached to several procedures times each of them separately.
/// - The timer is cancelled, and released, when the procedure finishes: nothing fires late, and the observer keeps
///   no reference to a finished procedure (the timer, which holds it until then, is released at finish).
///
/// Timers run on a ``/PKCore/ProcedureClock``: ``/PKCore/SystemClock`` by default, PKTesting's `ManualClock` in tests.
/// Thread-safe: a value type. On the system clock, each value carries one timer of its own, made with it and
/// started for the first procedure that executes (no closure, no table: PERF(W12)); other clocks, and further
/// procedures of a value attached to several, keep their timers in a process-wide locked table.
public struct TimeoutObserver: ProcedureObserver {

    /// The limit: an interval from the start of `execute()`, or a deadline.
    public let delay: Delay

    private let clock: any ProcedureClock
    /// This value's number in the table of running timers.
    private let id: UInt64
    /// The timer of the first procedure this value times, on the system clock (`nil` on other clocks).
    private let timer: ScheduledTimer?

    /// Times out the procedure `interval` seconds after it starts executing.
    public init(by interval: TimeInterval, clock: any ProcedureClock = SystemClock()) {
        self.init(delay: .by(interval), clock: clock)
    }

    /// Times out the procedure `duration` after it starts executing.
    public init(by duration: Duration, clock: any ProcedureClock = SystemClock()) {
        self.init(delay: .by(duration.timeInterval), clock: clock)
    }

    /// Times out the procedure at `date` (measured on `clock`), if it is still running then.
    public init(until date: Date, clock: any ProcedureClock = SystemClock()) {
        self.init(delay: .until(date), clock: clock)
    }

    private init(delay: Delay, clock: any ProcedureClock) {
        self.delay = delay
        self.clock = clock
        self.id = TimeoutTimers.shared.makeObserverID()
        timer = ScheduledTimer.timeout(of: delay, clock: clock)
    }

    /// How many procedures this observer value has a timer for now; for tests.
    var activeTimerCount: Int { TimeoutTimers.shared.count(for: id) + (timer?.isScheduled == true ? 1 : 0) }

    /// Starts the timer, unless the interval has already run out.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        let interval: TimeInterval
        switch delay {
        case .by(let seconds): interval = seconds  // PERF(W12): no need to read the clock
        case .until(let date): interval = date.timeIntervalSince(clock.now)
        }
        guard interval > 0 else { return }
        // The timer holds the procedure strongly until it fires or is stopped at finish (a weak reference would
        // give every timed procedure a side table, slowing each of its retains and releases).
        if let timer, timer.start(for: procedure, afterSeconds: interval) { return }
        let delay = delay
        // PERF(W12): the error is made only if the timer fires.
        let scheduled = clock.schedule(after: Duration(timeInterval: interval)) {
            guard !procedure.isFinished, !procedure.isCancelled else { return }
            procedure.cancel(with: ProcedureKitError.timedOut(with: delay))
        }
        // The same value attached twice to one procedure keeps both timers: the earlier one wins.
        TimeoutTimers.shared.add(scheduled, observer: id, for: procedure)
    }

    /// Cancels and releases the procedure's timers (this observer's own, and those in the table, whichever timeout
    /// observer started them).
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        timer?.stop(for: procedure)
        TimeoutTimers.shared.cancelAll(for: procedure)
    }
}

extension TimeoutObserver: EventSelectingObserver {
    private static let events: ObserverEventKinds = [.willExecute, .didFinish]

    /// It starts its timer at WillExecute and stops it at DidFinish; nothing else.
    package var observedEvents: ObserverEventKinds { Self.events }
}
