import Foundation
import PKCore

/// A response PKNetwork's procedures cannot use.
///
/// The procedures fail with ProcedureKit's error for these, ``/PKCore/ProcedureKitError`` `unknown` (so that
/// ProcedureKit code matching `ProcedureKitError.unknown` still does), with this as its `underlyingError`:
///
/// ```swift
/// if (procedure.error as? ProcedureKitError)?.underlyingError as? NetworkResponseError == .missingPayload { … }
/// ```
public enum NetworkResponseError: Error, Sendable, Equatable {
    /// The response is not an HTTP response (for example a `file://` URL's).
    case notHTTPResponse(url: URL?)
    /// The session reported neither a payload nor an error.
    case missingPayload
}

extension NetworkResponseError {
    /// ProcedureKit's `unknown` error, with this one as its cause: what the procedures fail with.
    var procedureKitError: ProcedureKitError { ProcedureKitError(context: .unknown, error: self) }
}
