import Foundation

/// A procedure that does nothing but wait: it finishes once its ``Delay`` has passed on its ``ProcedureClock``.
///
/// ```swift
/// let pause = DelayProcedure(by: .seconds(2))
/// work.addDependency(pause)
/// queue.add(procedures: pause, work)
/// ```
///
/// The wait starts when the procedure executes; a `.until` date is turned into an interval then. A zero or
/// negative interval, or a date already past, finishes the procedure at once. Otherwise the clock runs the finish
/// later, on a thread of its choosing (a private serial queue of the clock's for ``SystemClock``).
///
/// The delay is also its ``input``, so it can be injected from another procedure's output. A delay whose input is
/// still pending when it executes is cancelled with ``ProcedureKitError/Context/requirementNotSatisfied``.
///
/// Cancellation: cancelled before or while it waits, it cancels the scheduled clock action and finishes promptly,
/// ending cancelled. It finishes exactly once, even when the clock fires as it is cancelled.
open class DelayProcedure: Procedure, InputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `input` and the scheduled clock action live in `state`, guarded by its PKMutex; `clock`
    // is immutable and Sendable; the superclass guards its own state.

    private struct State {
        var input: Pending<Delay>
        var scheduled: (any ScheduledAction)?
    }

    private let state: PKMutex<State>

    /// The clock the delay is measured on.
    public let clock: any ProcedureClock

    /// Creates a procedure waiting for `delay`, or for a delay injected later through ``input`` when `nil`.
    public init(delay: Delay? = nil, clock: any ProcedureClock = SystemClock()) {
        state = PKMutex(State(input: delay.map { .ready($0) } ?? .pending))
        self.clock = clock
        super.init()
        name = delay.map { "Delay \($0)" } ?? "Delay"
    }

    /// Creates a procedure waiting `interval` seconds.
    public convenience init(by interval: TimeInterval, clock: any ProcedureClock = SystemClock()) {
        self.init(delay: .by(interval), clock: clock)
    }

    /// Creates a procedure waiting for `duration`.
    public convenience init(by duration: Duration, clock: any ProcedureClock = SystemClock()) {
        self.init(delay: .by(duration.timeInterval), clock: clock)
    }

    /// Creates a procedure waiting until `date` by its clock's ``ProcedureClock/now``.
    public convenience init(until date: Date, clock: any ProcedureClock = SystemClock()) {
        self.init(delay: .until(date), clock: clock)
    }

    /// The delay to wait; set it (for example by injection) before the procedure executes.
    public var input: Pending<Delay> {
        get { state.withLock { $0.input } }
        set { state.withLock { $0.input = newValue } }
    }

    /// The delay, or `nil` while the input is pending.
    public var delay: Delay? { input.value }

    /// Starts the wait, or finishes at once when there is nothing to wait for.
    open override func execute() {
        guard let delay = input.value else {
            // procedureDidCancel(withErrors:) finishes it, after this returns.
            cancel(with: ProcedureKitError.requirementNotSatisfied())
            return
        }
        let interval = delay.interval(from: clock.now)
        guard interval > 0 else {
            finish()
            return
        }
        // The action holds the procedure weakly: a cancelled action may outlive it inside the clock.
        let scheduled = clock.schedule(after: Duration(timeInterval: interval)) { [weak self] in
            self?.clockDidFire()
        }
        // A cancel accepted meanwhile is handled by procedureDidCancel, which runs after this returns and so
        // finds the action stored.
        state.withLock { $0.scheduled = scheduled }
    }

    private func clockDidFire() {
        let fired = state.withLock { replaceValue(&$0.scheduled, with: nil) }
        withExtendedLifetime(fired) {}  // the clock's action, released outside the lock
        finish()
    }

    /// Cancels the scheduled clock action and finishes. Runs in the procedure's event context, after `execute()`
    /// if that is running.
    public override func procedureDidCancel(withErrors errors: [any Error]) {
        let scheduled = state.withLock { state -> (any ScheduledAction)? in
            defer { state.scheduled = nil }
            return state.scheduled
        }
        scheduled?.cancel()
        // Before the procedure starts this finish is kept until its queue starts it; if the clock fired first,
        // the engine ignores this second finish.
        finish()
    }
}
