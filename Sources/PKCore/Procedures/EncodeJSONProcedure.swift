import Foundation

/// A procedure that encodes its input `T` as JSON `Data`.
///
/// Each run makes a fresh `JSONEncoder` with the factory given to the initializer (encoders are not
/// `Sendable`), so configure it there. Behaves as a ``TransformProcedure``: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; an encoding error finishes it with that error.
open class EncodeJSONProcedure<T: Encodable & Sendable>: TransformProcedure<T, Data>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure encoding a `type` with encoders made by `makeEncoder`.
    public init(
        _ type: T.Type = T.self, encoder makeEncoder: @escaping @Sendable () -> JSONEncoder = { JSONEncoder() }
    ) {
        super.init { value in try makeEncoder().encode(value) }
    }
}
