import Foundation

/// How long to wait: for an interval, or until a wall-clock date.
///
/// A `.until` delay is turned into an interval when the wait begins, using the ``ProcedureClock`` of the procedure
/// that waits, so a date already in the past means no wait at all.
public enum Delay: Sendable, Hashable, Comparable, CustomStringConvertible {
    /// Wait for this many seconds; zero or negative means no wait.
    case by(TimeInterval)
    /// Wait until this date; a date that has passed means no wait.
    case until(Date)

    /// The seconds left to wait when the clock reads `now` (negative when nothing is left).
    public func interval(from now: Date) -> TimeInterval {
        switch self {
        case .by(let seconds): seconds
        case .until(let date): date.timeIntervalSince(now)
        }
    }

    /// The seconds left to wait by the system clock. See ``interval(from:)``.
    public var interval: TimeInterval { interval(from: Date()) }

    /// Orders two delays of the same kind: shorter intervals, or earlier dates, first. A `.by` and an `.until`
    /// are not ordered (neither is less than the other), as in ProcedureKit.
    public static func < (lhs: Delay, rhs: Delay) -> Bool {
        switch (lhs, rhs) {
        case (.by(let left), .by(let right)): left < right
        case (.until(let left), .until(let right)): left < right
        case (.by, .until), (.until, .by): false
        }
    }

    /// `"for 1.0 seconds"` or `"until <date>"`.
    public var description: String {
        switch self {
        case .by(let seconds): "for \(seconds) seconds"
        case .until(let date): "until \(date.printableDescription)"
        }
    }
}
