import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An attempt's outcome as ``NetworkProcedure``'s recovery sees it: the HTTP response, if any, and the error, if any.
public struct ProcedureKitNetworkResponse: Sendable {
    /// The HTTP response, or `nil` when there was none.
    public let response: HTTPURLResponse?
    /// The error, classified, or `nil` when the attempt finished without one.
    public let error: ProcedureKitNetworkError?

    /// Creates a network response from an attempt's response and error, either of them absent by default, as
    /// ProcedureKit's initialiser does; the error is classified as a ``ProcedureKitNetworkError`` (one already
    /// classified is kept as it is).
    public init(response: HTTPURLResponse? = nil, error: (any Error)? = nil) {
        self.response = response
        self.error = error.map(ProcedureKitNetworkError.init)
    }

    /// The response's status code as an ``HTTPStatusCode``, or the status in an ``HTTPStatusError``.
    public var httpStatusCode: HTTPStatusCode? {
        if let response { return response.code }
        if let status = error?.underlyingError as? HTTPStatusError {
            return HTTPStatusCode(rawValue: status.statusCode)
        }
        return nil
    }
}
