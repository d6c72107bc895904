import Dispatch
import Foundation

/// The real clock: ``now`` is `Date()`, and actions run on a global dispatch queue after the delay has passed on
/// the system's monotonic clock.
///
/// Scheduled actions wait in one deadline-ordered heap per quality of service, watched by a single dispatch timer
/// (see ``TimerHeap``), so scheduling and cancelling cost a lock and a heap step, not a dispatch source each. Due
/// actions run on a global queue of the clock's quality of service. Cancelling a scheduled action removes it from
/// the heap and releases it at once.
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
        let nanoseconds = delay <= .zero ? 0 : UInt64(min(delay.timeInterval * 1e9, Double(UInt64.max / 4)))
        let deadline = DispatchTime.now().uptimeNanoseconds &+ nanoseconds
        return TimerHeap.shared(for: qualityOfService).schedule(deadline: deadline, action)
    }
}
