import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A request and the body to send with it: the input of ``NetworkUploadProcedure`` (ProcedureKit's
/// `HTTPPayloadRequest`, formerly `HTTPRequirement`).
public struct HTTPPayloadRequest<Payload: Equatable & Sendable>: Equatable, Sendable {
    /// The body to send; `nil` sends an empty body.
    public var payload: Payload?
    /// The request.
    public var request: URLRequest

    /// Creates a payload request.
    public init(payload: Payload? = nil, request: URLRequest) {
        self.payload = payload
        self.request = request
    }
}
