import Dispatch
import Foundation

/// The real clock: ``now`` is `Date()`, and actions run after the delay has passed on the system's monotonic clock.
///
/// Scheduled actions wait in one deadline-ordered heap per quality of service, watched by a single dispatch timer
/// (see `TimerHeap`), so scheduling and cancelling cost a lock and a heap step, not a dispatch source each.
/// Cancelling a scheduled action removes it from the heap and releases it at once.
///
/// Due actions run one at a time, in deadline order, on a private serial queue of the clock's quality of service,
/// which Dispatch gives a thread even while every thread of its global pool is busy: a timeout still fires when the
/// work it should stop keeps every core spinning. Keep actions short (cancel or finish a procedure, signal, hand
/// longer work to a queue): a slow action delays the ones due after it.
public struct SystemClock: ProcedureClock {
    /// The quality of service actions run at.
    public let qualityOfService: DispatchQoS.QoSClass

    /// Creates a clock whose actions run at `qualityOfService`.
    public init(qualityOfService: DispatchQoS.QoSClass = .default) {
        self.qualityOfService = qualityOfService
    }

    /// `Date()`.
    public var now: Date { Date() }

    /// Runs `action` once `delay` has passed (at once, asynchronously, when it is zero or negative), unless the
    /// returned action is cancelled first.
    public func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        let deadline = TimerHeap.deadline(afterSeconds: delay <= .zero ? 0 : delay.timeInterval)
        return TimerHeap.shared(for: qualityOfService).schedule(deadline: deadline, action)
    }
}
