import Foundation

/// A group with exactly one child, ``operation``: a way to attach observers, conditions or a name to an operation
/// you cannot change.
///
/// Cancelling the composed procedure cancels the operation. When the operation is an ``InputProcedure`` or
/// ``OutputProcedure``, `input` and `output` are forwarded to it.
open class ComposedProcedure<T: Operation>: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `operation` is immutable; the rest is the group's.

    /// The wrapped operation.
    public let operation: T

    /// Wraps `operation`.
    public init(operation: T) {
        self.operation = operation
        super.init(operations: [operation])
        name = "Composed<\(String(describing: T.self))>"
    }

    /// Wraps `operation`.
    public convenience init(_ operation: T) {
        self.init(operation: operation)
    }
}

extension ComposedProcedure: InputProcedure where T: InputProcedure {
    /// The wrapped procedure's input.
    public var input: Pending<T.Input> {
        get { operation.input }
        set { operation.input = newValue }
    }
}

extension ComposedProcedure: OutputProcedure where T: OutputProcedure {
    /// The wrapped procedure's output.
    public var output: Pending<ProcedureResult<T.Output>> {
        get { operation.output }
        set { operation.output = newValue }
    }
}
