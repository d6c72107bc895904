import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A procedure that makes a network request: what ``NetworkProcedure`` retries.
public protocol NetworkOperation: Procedure {
    /// The HTTP response, once there is one.
    var urlResponse: HTTPURLResponse? { get }
    /// The request being made, once known; ``NetworkProcedure`` reads its method to decide whether a
    /// connection-level failure may be retried. `nil` counts as not idempotent.
    var networkRequest: URLRequest? { get }
}

extension NetworkOperation {
    /// The request: `nil` unless the conforming type says otherwise.
    public var networkRequest: URLRequest? { nil }

    /// The outcome so far: the response, and the first error classified.
    public func makeNetworkResponse() -> ProcedureKitNetworkResponse {
        ProcedureKitNetworkResponse(response: urlResponse, error: error)
    }
}
