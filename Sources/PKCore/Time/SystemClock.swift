import Dispatch
import Foundation

/// The real clock: ``now`` is `Date()`, and actions run on a global dispatch queue after the delay has passed on
/// the system's monotonic clock.
///
/// Each scheduled action is a one-shot `DispatchSourceTimer`. Actions run on a global queue of the clock's
/// quality of service. Cancelling a scheduled action cancels its timer and releases the action at once.
public struct SystemClock: ProcedureClock {
    /// The quality of service of the global queue actions run on.
    public let qualityOfService: DispatchQoS.QoSClass

    /// Creates a clock whose actions run on the global queue of `qualityOfService`.
    public init(qualityOfService: DispatchQoS.QoSClass = .default) {
        self.qualityOfService = qualityOfService
    }

    /// `Date()`.
    public var now: Date { Date() }

    /// Runs `action` on a global dispatch queue once `delay` has passed (at once, asynchronously, when it is zero
    /// or negative), unless the returned action is cancelled first.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        let scheduled = DispatchScheduledAction(action)
        let nanoseconds = delay <= .zero ? 0 : Int(min(delay.timeInterval * 1e9, Double(Int.max / 2)))
        scheduled.start(on: .global(qos: qualityOfService), deadline: .now() + .nanoseconds(nanoseconds))
        return scheduled
    }
}

/// A ``SystemClock`` action: a one-shot dispatch timer and the action it runs, both released when it fires or
/// is cancelled.
final class DispatchScheduledAction: ScheduledAction {
    // The timer and the action live in `state`; the timer is cancelled inside the lock (never user code), the
    // action is taken out and run outside it.
    private struct State {
        var action: (@Sendable () -> Void)?
        var timer: DispatchTimerBox?
    }

    /// Dispatch sources are thread-safe objects; the box only lets the timer cross into the lock.
    struct DispatchTimerBox: @unchecked Sendable {
        let timer: any DispatchSourceTimer
    }

    private let state: PKMutex<State>

    init(_ action: @escaping @Sendable () -> Void) {
        state = PKMutex(State(action: action, timer: nil))
    }

    func start(on queue: DispatchQueue, deadline: DispatchTime) {
        let timer = DispatchSource.makeTimerSource(queue: queue)
        // The handler holds this object until it fires or is cancelled; both end the cycle by dropping the timer.
        timer.setEventHandler { [self] in fire() }
        timer.schedule(deadline: deadline, repeating: .never, leeway: .milliseconds(1))
        let box = DispatchTimerBox(timer: timer)
        let started = state.withLock { state -> Bool in
            guard state.action != nil else { return false }  // cancelled already (cannot happen before return)
            state.timer = box
            timer.resume()
            return true
        }
        if !started {
            timer.resume()
            timer.cancel()
        }
    }

    private func fire() {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.timer?.timer.cancel()
            state.timer = nil
            defer { state.action = nil }
            return state.action
        }
        action?()
    }

    func cancel() {
        state.withLock { state in
            state.timer?.timer.cancel()
            state.timer = nil
            state.action = nil
        }
    }
}
