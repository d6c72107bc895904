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
    ///
    /// A code ``HTTPStatusCode`` does not name is the x00 code of its class, as RFC 9110 §15 tells a client to treat
    /// an unrecognised status: Cloudflare's 520–527 and a proxy's 599 are ``HTTPStatusCode/internalServerError``, an
    /// unknown 4xx ``HTTPStatusCode/badRequest`` (so the default policy retries the first like a 500 and not the
    /// second). `nil` when there is no status, or one outside 100–599. The exact code is `response?.statusCode`.
    public var httpStatusCode: HTTPStatusCode? {
        if let response { return HTTPStatusCode.equivalent(to: response.statusCode) }
        if let status = error?.underlyingError as? HTTPStatusError {
            return HTTPStatusCode.equivalent(to: status.statusCode)
        }
        return nil
    }
}
