/// The outcome of a procedure that produces a value: the value, or the error that prevented it.
public typealias ProcedureResult<T> = Result<T, any Error>

/// A result that may hold a value or an error: ProcedureKit's view of ``ProcedureResult``, which lets
/// `Pending<ProcedureResult<T>>` offer ``Pending/success`` and ``Pending/error``.
public protocol ProcedureResultProtocol {
    /// The type of the value.
    associatedtype Value
    /// The value, or `nil` for a failure.
    var value: Value? { get }
    /// The error, or `nil` for a success.
    var error: (any Error)? { get }
}

extension Result: ProcedureResultProtocol where Failure == any Error {
    /// The value, or `nil` for a failure.
    public var value: Success? {
        if case .success(let value) = self { return value }
        return nil
    }

    /// The error, or `nil` for a success.
    public var error: (any Error)? {
        if case .failure(let error) = self { return error }
        return nil
    }
}

/// A `Void` input that is ready.
public let pendingVoid: Pending<Void> = .ready(())

/// A successful `Void` result.
public let success: ProcedureResult<Void> = .success(())

/// A `Void` output that is ready and successful.
public let pendingVoidResult: Pending<ProcedureResult<Void>> = .ready(success)
