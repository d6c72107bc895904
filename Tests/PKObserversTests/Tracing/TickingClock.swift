import Foundation
import PKCore
import PKTesting

/// A clock that moves on by `tick` every time it is read: every time a trace records is distinct, and times follow
/// the order of the readings, whatever the threads' speed. Scheduling is PKTesting's `ManualClock`'s.
final class TickingClock: ProcedureClock {
    private let base = ManualClock(now: Date(timeIntervalSinceReferenceDate: 0))
    private let readings = PKMutex(0)
    private let tick: TimeInterval

    init(tick: TimeInterval = 0.000_001) {
        self.tick = tick
    }

    var now: Date {
        let count = readings.withLock { count -> Int in
            count += 1
            return count
        }
        return Date(timeIntervalSinceReferenceDate: Double(count) * tick)
    }

    func schedule(after delay: Duration, _ action: @escaping @Sendable () -> Void) -> any ScheduledAction {
        base.schedule(after: delay, action)
    }
}
