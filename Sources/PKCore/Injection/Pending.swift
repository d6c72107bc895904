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

extension Pending where T: ProcedureResultProtocol {
    /// The successful value, or `nil` while pending or for a failure: `procedure.output.success`.
    public var success: T.Value? { value?.value }

    /// The error, or `nil` while pending or for a success: `procedure.output.error`.
    public var error: (any Error)? { value?.error }
}

extension Pending {
    /// The value of a finished procedure's output, or a thrown error: the failure's error, or
    /// ``ProcedureKitError/requirementNotSatisfied()`` while the output is still pending.
    ///
    /// ```swift
    /// try await queue.run(fetch)
    /// let count = try fetch.output.get()
    /// ```
    public func get<Value>() throws -> Value where T == ProcedureResult<Value> {
        switch self {
        case .ready(.success(let value)): return value
        case .ready(.failure(let error)): throw error
        case .pending: throw ProcedureKitError.requirementNotSatisfied()
        }
    }
}

extension Optional {
    /// `.pending` for `nil`, otherwise `.ready` with the value.
    public var pending: Pending<Wrapped> { Pending(self) }
}
