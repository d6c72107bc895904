/// A value that may not be available yet: `.pending`, then `.ready(value)`.
public enum Pending<T> {
    /// Not available yet.
    case pending
    /// Available.
    case ready(T)

    /// `true` while no value is available.
    public var isPending: Bool {
        if case .pending = self { return true }
        return false
    }

    /// The value, or `nil` while pending.
    public var value: T? {
        if case .ready(let value) = self { return value }
        return nil
    }

    /// Wraps an optional: `nil` becomes `.pending`.
    public init(_ value: T?) {
        self = value.map { .ready($0) } ?? .pending
    }
}

extension Pending: Sendable where T: Sendable {}
extension Pending: Equatable where T: Equatable {}
