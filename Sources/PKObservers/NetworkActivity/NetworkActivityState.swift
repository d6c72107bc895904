import PKCore

/// The counter and indicator state of a ``NetworkActivityController``, as a state machine: each event returns what
/// the controller must do once it has left its lock.
///
/// The counter never goes below zero (a `stop` without a `start` is refused), the indicator is shown while the count
/// is above zero, and hiding waits for a grace period that any `start` cancels, so work that starts within it keeps
/// the indicator on without a flicker.
struct NetworkActivityState {

    /// What the controller does after an event, outside its lock.
    enum Action {
        case none
        /// Make the indicator show `visible`: the `sequence`th change of visibility.
        case updateIndicator(visible: Bool, sequence: UInt64)
        /// Schedule the hide timer for this generation.
        case scheduleHide(generation: UInt64)
        /// Cancel the pending hide timer, then update the indicator.
        case cancelHideAndUpdateIndicator(Pending, visible: Bool, sequence: UInt64)
        /// Cancel the pending hide timer.
        case cancelHide(Pending)
        /// A `stop` without a matching `start`: log it.
        case refuseUnbalancedStop
    }

    /// A hide timer, once scheduled: the controller stores it here so a `start` can cancel it.
    struct Pending {
        let generation: UInt64
        let timer: any ScheduledAction
    }

    private(set) var count = 0
    private(set) var peak = 0
    /// Whether the indicator should be visible now.
    private(set) var visible = false
    /// Bumped whenever a scheduled hide becomes stale.
    private(set) var generation: UInt64 = 0
    /// Bumped at every change of visibility: the controller applies a change only if it is newer than the last one
    /// it applied, so writes dispatched out of order never leave a stale value.
    private(set) var sequence: UInt64 = 0
    private var pendingHide: Pending?

    /// Work started.
    mutating func start() -> Action {
        count += 1
        peak = max(peak, count)
        generation &+= 1
        let pending = pendingHide
        pendingHide = nil
        let becameVisible = !visible
        visible = true
        if becameVisible { sequence &+= 1 }
        switch (pending, becameVisible) {
        case (let pending?, true): return .cancelHideAndUpdateIndicator(pending, visible: true, sequence: sequence)
        case (let pending?, false): return .cancelHide(pending)
        case (nil, true): return .updateIndicator(visible: true, sequence: sequence)
        case (nil, false): return .none
        }
    }

    /// Work stopped.
    mutating func stop() -> Action {
        guard count > 0 else { return .refuseUnbalancedStop }
        count -= 1
        guard count == 0 else { return .none }
        generation &+= 1
        return .scheduleHide(generation: generation)
    }

    /// The hide timer for `generation` was scheduled; returns `false` when it is already stale (cancel it).
    mutating func hideScheduled(generation scheduled: UInt64, timer: any ScheduledAction) -> Bool {
        guard scheduled == generation, count == 0 else { return false }
        pendingHide = Pending(generation: scheduled, timer: timer)
        return true
    }

    /// The hide timer for `generation` fired.
    mutating func hideTimerFired(generation fired: UInt64) -> Action {
        guard fired == generation, count == 0, visible else { return .none }
        pendingHide = nil
        visible = false
        sequence &+= 1
        return .updateIndicator(visible: false, sequence: sequence)
    }
}
