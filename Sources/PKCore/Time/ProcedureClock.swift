import Foundation

/// A source of time for the time-based procedures: it tells the current instant and runs an action after a
/// delay.
///
/// ``DelayProcedure``, ``RepeatProcedure`` and ``RetryProcedure`` take a clock in their initialisers
/// (`clock: any ProcedureClock = SystemClock()`), so tests can pass a clock they drive by hand (PKTesting's
/// `ManualClock`) instead of waiting for real time to pass.
///
/// Conforming types must be thread-safe: ``now`` and ``schedule(after:_:)`` may be called from any thread.
public protocol ProcedureClock: Sendable {
    /// The current wall-clock instant, used to turn a `Date` deadline into a delay.
    var now: Date { get }

    /// Runs `action` once, after `delay`, unless the returned ``ScheduledAction`` is cancelled first.
    ///
    /// The clock chooses the thread `action` runs on (``SystemClock`` uses a private serial queue of its own); it is never
    /// run on the calling thread before this method returns. A zero or negative delay runs the action as soon as
    /// the clock allows. Cancelling the returned action before it runs means it never runs, and the clock lets go
    /// of it.
    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction
}

/// A one-shot action a ``ProcedureClock`` has scheduled.
public protocol ScheduledAction: Sendable {
    /// Stops the action from running, if it has not started yet, and releases it. Safe to call more than once,
    /// from any thread, and after the action has run (it then does nothing).
    func cancel()
}

extension ProcedureClock {
    /// Runs `action` once at `deadline`, or as soon as possible if `deadline` is not after ``now``.
    ///
    /// The delay is worked out from ``now`` when this is called. See ``schedule(after:_:)`` for threads and
    /// cancellation.
    public func schedule(at deadline: Date, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        schedule(after: Duration(timeInterval: deadline.timeIntervalSince(now)), action)
    }
}

extension Duration {
    /// The duration `timeInterval` seconds long, limited to about ±31,000 years (zero for NaN): what every
    /// `TimeInterval` that may be NaN, infinite or huge goes through, since `Duration.seconds(_:)` traps on those.
    package init(timeInterval: TimeInterval) {
        guard !timeInterval.isNaN else {
            self = .zero
            return
        }
        self = .seconds(Swift.min(Swift.max(timeInterval, -1e12), 1e12))
    }

    /// The duration in seconds, as a `TimeInterval`. Never traps: `components` does, for a duration longer than
    /// `Int64.max` seconds (`.seconds(1e19)`, which `Duration` can hold).
    package var timeInterval: TimeInterval {
        TimeInterval(attoseconds) / 1e18
    }

    /// The duration limited to about ±31,000 years, as ``init(timeInterval:)`` limits a `TimeInterval`: for
    /// arithmetic on user-supplied durations that must not overflow.
    package var clampedForArithmetic: Duration {
        Swift.min(Swift.max(self, .seconds(-1e12)), .seconds(1e12))
    }
}
