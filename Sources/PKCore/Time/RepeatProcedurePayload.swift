import Foundation

/// One step of a ``RepeatProcedure``: the operation to run, how long to wait before it, and an optional block
/// that configures it (and every later operation).
public struct RepeatProcedurePayload<T: Operation>: Sendable {
    /// The operation to run.
    public let operation: T
    /// The wait before the operation starts; `nil` (or a zero wait) starts it as soon as the previous one has
    /// finished. Not used for the first operation, which starts when the repeat executes.
    public var delay: Delay?
    /// When set, replaces the repeat's configure block; the repeat's configure block runs on each operation, in
    /// the repeat's event context, just before it is added.
    public var configure: (@Sendable (T) -> Void)?

    /// Creates a payload.
    public init(operation: T, delay: Delay? = nil, configure: (@Sendable (T) -> Void)? = nil) {
        self.operation = operation
        self.delay = delay
        self.configure = configure
    }

    /// A copy of the payload waiting `delay` instead.
    public func set(delay: Delay?) -> RepeatProcedurePayload<T> {
        var copy = self
        copy.delay = delay
        return copy
    }
}

/// Pairs each operation with the next delay; the first pair's delay is the strategy's first value, which a
/// repeat does not use.
struct PayloadIterator<T: Operation, Operations: IteratorProtocol<T>, Delays: IteratorProtocol<Delay>>:
    IteratorProtocol
{
    var operations: Operations
    var delays: Delays

    mutating func next() -> RepeatProcedurePayload<T>? {
        guard let operation = operations.next() else { return nil }
        return RepeatProcedurePayload(operation: operation, delay: delays.next())
    }
}

/// Calls a closure for each operation until it returns `nil`.
struct ClosureIterator<T>: IteratorProtocol {
    let body: @Sendable () -> T?

    mutating func next() -> T? { body() }
}
