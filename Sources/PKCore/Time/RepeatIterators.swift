import Foundation

// ProcedureKit's small iterators for feeding a `RepeatProcedure` or `RetryProcedure`. Each is a value type; an
// iterator is used by one repeat at a time (the repeat calls it in its event context).

/// Calls a closure with 0, 1, 2, … until it returns `nil`.
public struct CountingIterator<Element>: IteratorProtocol {
    private let body: (Int) -> Element?
    /// How many elements have been asked for so far.
    public private(set) var count = 0

    /// Creates an iterator calling `body` with the count of elements produced before.
    public init(_ body: @escaping (Int) -> Element?) {
        self.body = body
    }

    /// `body(count)`, then counts it.
    public mutating func next() -> Element? {
        defer { count += 1 }
        return body(count)
    }
}

/// At most `limit` elements of another iterator.
public struct FiniteIterator<Element>: IteratorProtocol {
    private var base: AnyIterator<Element>
    private var remaining: Int

    /// Wraps `iterator`, stopping after `limit` elements.
    public init<I: IteratorProtocol>(_ iterator: I, limit: Int = 10) where I.Element == Element {
        base = AnyIterator(iterator)
        remaining = limit
    }

    /// The next element, or `nil` once `limit` elements were given (or the base ran out).
    public mutating func next() -> Element? {
        guard remaining > 0 else { return nil }
        remaining -= 1
        return base.next()
    }
}

/// Another iterator's elements, transformed.
public struct MapIterator<T, V>: IteratorProtocol {
    private var base: AnyIterator<T>
    private let transform: (T) -> V

    /// Wraps `iterator`, applying `transform` to each element.
    public init<I: IteratorProtocol>(_ iterator: I, transform: @escaping (T) -> V) where I.Element == T {
        base = AnyIterator(iterator)
        self.transform = transform
    }

    /// The next element, transformed.
    public mutating func next() -> V? {
        base.next().map(transform)
    }
}

/// Pairs each element of a primary iterator with the next of a secondary one (`nil` once that runs out); ends
/// with the primary.
public struct PairIterator<T, V>: IteratorProtocol {
    private var primary: AnyIterator<T>
    private var secondary: AnyIterator<V>

    /// Pairs `primary` with `secondary`.
    public init<Primary: IteratorProtocol, Secondary: IteratorProtocol>(primary: Primary, secondary: Secondary)
    where Primary.Element == T, Secondary.Element == V {
        self.primary = AnyIterator(primary)
        self.secondary = AnyIterator(secondary)
    }

    /// The next pair, or `nil` when the primary has run out.
    public mutating func next() -> (T, V?)? {
        guard let element = primary.next() else { return nil }
        return (element, secondary.next())
    }
}

/// Another iterator's elements, except that each call ends it (returns `nil`) with the given probability: a way
/// to make a repeat stop at a random point in tests.
public struct RandomFailIterator<Element>: IteratorProtocol {
    private var base: AnyIterator<Element>
    private var generator = SystemRandomNumberGenerator()
    /// The chance, from 0 to 1, that a call returns `nil`.
    public let probability: Double

    /// Wraps `iterator`, returning `nil` with `probability` on each call.
    public init<I: IteratorProtocol>(_ iterator: I, probability: Double = 0.1) where I.Element == Element {
        base = AnyIterator(iterator)
        self.probability = probability
    }

    /// `nil` with the iterator's probability, otherwise the base's next element.
    public mutating func next() -> Element? {
        guard Double.random(in: 0..<1, using: &generator) >= probability else { return nil }
        return base.next()
    }
}

/// The Fibonacci numbers: 0, 1, 1, 2, 3, 5, …, stopping before they overflow.
public struct FibonacciIterator: IteratorProtocol {
    private var current = 0
    private var following = 1
    private var isDone = false

    /// Creates the iterator.
    public init() {}

    /// The next Fibonacci number.
    public mutating func next() -> Int? {
        guard !isDone else { return nil }
        let value = current
        let (sum, overflow) = current.addingReportingOverflow(following)
        if overflow { isDone = true }
        (current, following) = (following, sum)
        return value
    }
}
