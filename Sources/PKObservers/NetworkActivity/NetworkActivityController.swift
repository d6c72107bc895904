import Dispatch
import Foundation
import PKCore

/// Counts network work in flight and drives a ``NetworkActivityIndicatorProtocol``: shown while anything is in
/// flight, hidden ``timerInterval`` after the last piece of work stops.
///
/// ``start()`` and ``stop()`` may be called from any thread. The indicator is written on the controller's serial
/// queue (its own, or the one passed to the initializer), never on `DispatchQueue.main`, and only when its value
/// changes, in the order the changes happened. Work that starts within the grace period keeps the indicator on without a flicker. A `stop()`
/// without a matching `start()` is refused with a warning: the count never goes below zero.
///
/// The grace period runs on a ``/PKCore/ProcedureClock`` (PKTesting's `ManualClock` in tests).
///
/// To only count, create it with ``init()``: it then drives no indicator, and ``inFlightCount`` and
/// ``peakInFlightCount`` are all it reports.
///
/// Thread-safe: the state lives in a mutex; the indicator is touched only on ``queue``.
public final class NetworkActivityController: Sendable {

    /// How long the indicator stays on after the count drops to zero (zero for a controller without an indicator).
    public let timerInterval: TimeInterval
    /// The serial queue the indicator is written on (a private one, never used, for a controller without an
    /// indicator).
    public let queue: DispatchQueue

    /// The indicator; `nil` for a controller that only counts.
    private let indicator: (any NetworkActivityIndicatorProtocol)?
    private let clock: any ProcedureClock
    private let state = PKMutex(NetworkActivityState())
    /// The sequence number of the last visibility change written; used on ``queue`` only, behind its own lock so the
    /// type stays checked `Sendable`.
    private let lastWritten = PKMutex<UInt64>(0)

    /// Creates a controller for `indicator`, hiding it `timerInterval` seconds after the last work stops (a zero,
    /// negative or NaN interval hides it at once; an infinite one never); the
    /// indicator is written on `queue` (a private serial queue when `nil`).
    public init(
        timerInterval: TimeInterval = 1.0, indicator: any NetworkActivityIndicatorProtocol, queue: DispatchQueue? = nil,
        clock: any ProcedureClock = SystemClock()
    ) {
        self.timerInterval = timerInterval
        self.indicator = indicator
        self.queue = queue ?? DispatchQueue(label: "PKObservers.NetworkActivityController")
        self.clock = clock
    }

    /// Creates a controller that only counts work in flight, with no indicator to drive: read ``inFlightCount`` and
    /// ``peakInFlightCount``.
    ///
    /// ```swift
    /// let activity = NetworkActivityController()
    /// fetch.addObserver(NetworkObserver(controller: activity))
    /// // … once the work is done:
    /// print("at most \(activity.peakInFlightCount) requests at once")
    /// ```
    ///
    /// ``start()`` and ``stop()`` count exactly as with an indicator, from any thread; with nothing to show or hide,
    /// the controller schedules no timer and dispatches nothing to ``queue``.
    public init() {
        self.timerInterval = 0
        self.indicator = nil
        self.queue = DispatchQueue(label: "PKObservers.NetworkActivityController")
        self.clock = SystemClock()
    }

    /// How much work is in flight now.
    public var inFlightCount: Int { state.withLock { $0.count } }

    /// The most work that was in flight at once.
    public var peakInFlightCount: Int { state.withLock { $0.peak } }

    /// Work started: the indicator is shown (a pending hide is called off).
    public func start() {
        perform(state.withLock { $0.start() })
    }

    /// Work stopped: when none is left, the indicator is hidden after ``timerInterval``.
    public func stop() {
        perform(state.withLock { $0.stop() })
    }

    private func perform(_ action: NetworkActivityState.Action) {
        switch action {
        case .none:
            break
        case .updateIndicator(let visible, let sequence):
            write(visible, sequence: sequence)
        case .cancelHideAndUpdateIndicator(let pending, let visible, let sequence):
            pending.timer.cancel()
            write(visible, sequence: sequence)
        case .cancelHide(let pending):
            pending.timer.cancel()
        case .scheduleHide(let generation) where indicator == nil:
            // Nothing to keep from flickering: the hide takes effect at once, with no timer, and writes nothing.
            perform(state.withLock { $0.hideTimerFired(generation: generation) })
        case .scheduleHide(let generation):
            let timer = clock.schedule(after: Duration(timeInterval: Swift.max(0, timerInterval))) { [weak self] in
                guard let self else { return }
                self.perform(self.state.withLock { $0.hideTimerFired(generation: generation) })
            }
            let kept = state.withLock { $0.hideScheduled(generation: generation, timer: timer) }
            if !kept { timer.cancel() }
        case .refuseUnbalancedStop:
            Log.write(.warning, "NetworkActivityController.stop() without a matching start(); ignored")
        }
    }

    /// Writes `visible` on the queue, unless a newer change was written first (two threads' writes can reach the
    /// queue out of order) or the indicator already shows it. Without an indicator, does nothing.
    private func write(_ visible: Bool, sequence: UInt64) {
        guard let indicator else { return }
        queue.async { [self] in
            let newest = lastWritten.withLock { last -> Bool in
                guard sequence > last else { return false }
                last = sequence
                return true
            }
            guard newest, indicator.isNetworkActivityIndicatorVisible != visible else { return }
            indicator.isNetworkActivityIndicatorVisible = visible
        }
    }
}
