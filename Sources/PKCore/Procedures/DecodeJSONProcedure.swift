import Foundation

/// A procedure that decodes its input JSON `Data` into a `T`.
///
/// ```swift
/// let decode = DecodeJSONProcedure(User.self)
/// decode.injectResult(from: download)
/// ```
///
/// Each run makes a fresh `JSONDecoder` with the factory given to the initializer (decoders are not
/// `Sendable`), so configure it there. Behaves as a ``TransformProcedure``: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; a decoding error finishes it with that error.
open class DecodeJSONProcedure<T: Decodable & Sendable>: TransformProcedure<Data, T>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure decoding a `type` with decoders made by `makeDecoder`.
    public init(
        _ type: T.Type = T.self, decoder makeDecoder: @escaping @Sendable () -> JSONDecoder = { JSONDecoder() }
    ) {
        super.init { data in try makeDecoder().decode(T.self, from: data) }
    }
}
