import Foundation

/// ProcedureKit's endless iterators of waits, in seconds: the same sequences as ``WaitStrategy``, by name.
///
/// ```swift
/// RepeatProcedure(delay: Delay.Iterator.exponential(), iterator: attempts)
/// ```
public enum IntervalIterator {
    /// 0, 0, 0, …
    public static var immediate: AnyIterator<TimeInterval> { WaitStrategy.immediate.iterator }

    /// `constant`, `constant`, …
    public static func constant(_ constant: TimeInterval = 1.0) -> AnyIterator<TimeInterval> {
        WaitStrategy.constant(constant).iterator
    }

    /// Uniformly distributed waits between `minimum` and `maximum`.
    public static func random(withMinimum minimum: TimeInterval = 0.0, andMaximum maximum: TimeInterval = 10.0)
        -> AnyIterator<TimeInterval>
    {
        WaitStrategy.random(minimum: minimum, maximum: maximum).iterator
    }

    /// `initial`, `initial + increment`, … never below zero.
    public static func incrementing(from initial: TimeInterval = 0.0, by increment: TimeInterval = 1.0)
        -> AnyIterator<TimeInterval>
    {
        WaitStrategy.incrementing(initial: initial, increment: increment).iterator
    }

    /// `period × fib(n)` (fib = 0, 1, 1, 2, 3, 5, …), at most `maximum`.
    public static func fibonacci(
        withPeriod period: TimeInterval = 1.0, andMaximum maximum: TimeInterval = TimeInterval(Int.max)
    ) -> AnyIterator<TimeInterval> {
        WaitStrategy.fibonacci(period: period, maximum: maximum).iterator
    }

    /// `period × powerⁿ` from n = 0, at most `maximum`.
    public static func exponential(
        power: Double = 2.0, withPeriod period: TimeInterval = 1.0,
        andMaximum maximum: TimeInterval = TimeInterval(Int.max)
    ) -> AnyIterator<TimeInterval> {
        WaitStrategy.exponential(power: power, period: period, maximum: maximum).iterator
    }
}

extension Delay {

    /// The intervals of `iterator` as ``Delay/by(_:)`` values.
    public static func iterator(_ iterator: AnyIterator<TimeInterval>) -> AnyIterator<Delay> {
        AnyIterator { iterator.next().map { Delay.by($0) } }
    }

    /// ProcedureKit's endless iterators of ``Delay/by(_:)`` values, one per ``IntervalIterator`` sequence.
    public enum Iterator {
        /// `.by(0)` forever.
        public static var immediate: AnyIterator<Delay> { Delay.iterator(IntervalIterator.immediate) }

        /// `.by(constant)` forever.
        public static func constant(_ constant: TimeInterval = 1.0) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.constant(constant))
        }

        /// Random waits between `minimum` and `maximum`.
        public static func random(withMinimum minimum: TimeInterval = 0.0, andMaximum maximum: TimeInterval = 10.0)
            -> AnyIterator<Delay>
        {
            Delay.iterator(IntervalIterator.random(withMinimum: minimum, andMaximum: maximum))
        }

        /// Waits growing by `increment` from `initial`, never below zero.
        public static func incrementing(from initial: TimeInterval = 0.0, by increment: TimeInterval = 1.0)
            -> AnyIterator<Delay>
        {
            Delay.iterator(IntervalIterator.incrementing(from: initial, by: increment))
        }

        /// Waits following the Fibonacci numbers times `period`, at most `maximum`.
        public static func fibonacci(
            withPeriod period: TimeInterval = 1.0, andMaximum maximum: TimeInterval = TimeInterval(Int.max)
        ) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.fibonacci(withPeriod: period, andMaximum: maximum))
        }

        /// Waits of `period × powerⁿ`, at most `maximum`.
        public static func exponential(
            power: Double = 2.0, withPeriod period: TimeInterval = 1.0,
            andMaximum maximum: TimeInterval = TimeInterval(Int.max)
        ) -> AnyIterator<Delay> {
            Delay.iterator(IntervalIterator.exponential(power: power, withPeriod: period, andMaximum: maximum))
        }
    }
}

extension WaitStrategy {
    /// The strategy's waits as an endless `AnyIterator`: ProcedureKit's spelling of ``makeIterator()``.
    public var iterator: AnyIterator<TimeInterval> {
        var base = makeIterator()
        return AnyIterator { base.next() }
    }
}
