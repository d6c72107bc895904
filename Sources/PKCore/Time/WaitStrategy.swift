import Foundation

/// How long to wait between the attempts of a ``RepeatProcedure`` or ``RetryProcedure``: an endless sequence of
/// delays, in seconds.
///
/// ```swift
/// Array(WaitStrategy.exponential(power: 2, period: 1, maximum: 20).prefix(7))  // [1, 2, 4, 8, 16, 20, 20]
/// ```
///
/// The n-th value (n = 0, 1, …) of each strategy:
/// - ``immediate``: 0.
/// - ``constant(_:)``: the constant.
/// - ``incrementing(initial:increment:)``: `max(0, initial + increment × n)`.
/// - ``fibonacci(period:maximum:)``: `period × fib(n)` kept within `0…maximum`, where fib is 0, 1, 1, 2, 3, 5, ….
/// - ``exponential(power:period:maximum:)``: `period × powerⁿ` kept within `0…maximum`.
/// - ``random(minimum:maximum:)``: uniformly distributed in `minimum…maximum`.
///
/// Bad values never trap: NaN counts as 0, and every value but a constant is kept within ±1e12 s (about 31,000
/// years, the longest wait a ``DelayProcedure`` makes), infinite bounds included. A NaN `maximum` of a Fibonacci
/// or exponential backoff counts as no maximum (only that limit), not 0: a backoff whose cap was computed wrongly
/// keeps backing off instead of retrying at once, for ever. A constant is returned as given;
/// the delay made from it is clamped the same way.
///
/// A repeat uses the first value for its first attempt, which starts at once, so the wait before attempt k + 1 is
/// the value at n = k.
public enum WaitStrategy: Sequence, Sendable, Hashable {
    /// No wait.
    case immediate
    /// The same wait each time.
    case constant(TimeInterval)
    /// A wait growing (or shrinking, never below zero) by `increment` each time.
    case incrementing(initial: TimeInterval, increment: TimeInterval)
    /// Waits following the Fibonacci numbers, times `period`, capped at `maximum`.
    case fibonacci(period: TimeInterval, maximum: TimeInterval)
    /// Waits of `period × powerⁿ`, capped at `maximum`.
    case exponential(power: Double, period: TimeInterval, maximum: TimeInterval)
    /// Random waits between `minimum` and `maximum`, from `SystemRandomNumberGenerator` unless an iterator is made
    /// with ``makeIterator(using:)``.
    case random(minimum: TimeInterval, maximum: TimeInterval)

    /// An endless iterator of the strategy's waits, in seconds.
    public func makeIterator() -> Iterator {
        Iterator(strategy: self, generator: SystemRandomNumberGenerator())
    }

    /// An endless iterator of the strategy's waits whose ``random(minimum:maximum:)`` values come from
    /// `generator` (for reproducible tests).
    public func makeIterator(using generator: some RandomNumberGenerator & Sendable) -> Iterator {
        Iterator(strategy: self, generator: generator)
    }

    /// The waits as ``Delay/by(_:)`` values: an endless iterator.
    public func makeDelayIterator() -> some IteratorProtocol<Delay> & Sendable {
        DelayIterator(base: makeIterator())
    }

    /// The endless iterator of a ``WaitStrategy``'s waits.
    public struct Iterator: IteratorProtocol, Sendable {
        private let strategy: WaitStrategy
        private var generator: any RandomNumberGenerator & Sendable
        private var index = 0
        /// fib(index) and fib(index + 1).
        private var fibonacci: (Double, Double) = (0, 1)

        fileprivate init(strategy: WaitStrategy, generator: any RandomNumberGenerator & Sendable) {
            self.strategy = strategy
            self.generator = generator
        }

        /// The next wait, in seconds; never `nil`.
        public mutating func next() -> TimeInterval? {
            defer { index += 1 }
            switch strategy {
            case .immediate:
                return 0
            case .constant(let value):
                return value
            case .incrementing(let initial, let increment):
                return clamp(initial + increment * Double(index), maximum: 1e12)
            case .fibonacci(let period, let maximum):
                let value = fibonacci.0
                fibonacci = (fibonacci.1, fibonacci.0 + fibonacci.1)
                return clamp(period * value, maximum: maximum)
            case .exponential(let power, let period, let maximum):
                return clamp(period * pow(power, Double(index)), maximum: maximum)
            case .random(let minimum, let maximum):
                // `Double.random(in:)` traps on an infinite range or one wider than the largest Double: the bounds
                // are kept within ±1e12 s first (about 31,000 years, as every wait is limited); NaN counts as 0.
                func bounded(_ value: Double) -> Double { value.isNaN ? 0 : Swift.min(Swift.max(value, -1e12), 1e12) }
                let (first, second) = (bounded(minimum), bounded(maximum))
                let (low, high) = first <= second ? (first, second) : (second, first)
                guard low < high else { return low }
                return Double.random(in: low...high, using: &generator)
            }
        }

        /// `value` within 0…`maximum`, and never beyond 1e12 s (about 31,000 years, the longest wait anywhere);
        /// a NaN value counts as 0, a NaN maximum as none.
        private func clamp(_ value: Double, maximum: Double) -> Double {
            guard !value.isNaN else { return 0 }
            let cap = maximum.isNaN ? 1e12 : Swift.max(0, maximum)
            return Swift.min(Swift.max(0, value), cap, 1e12)
        }
    }
}

/// Maps a wait strategy's seconds to ``Delay/by(_:)``.
private struct DelayIterator: IteratorProtocol, Sendable {
    var base: WaitStrategy.Iterator

    mutating func next() -> Delay? {
        base.next().map { Delay.by($0) }
    }
}
