import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What a response carries: a payload and its `HTTPURLResponse`.
public protocol HTTPPayloadResponseProtocol: Sendable {
    /// The type of the payload.
    associatedtype Payload: Sendable
    /// The payload: the body (``NetworkDataProcedure``, ``NetworkUploadProcedure``) or the file holding it
    /// (``NetworkDownloadProcedure``).
    var payload: Payload? { get }
    /// The HTTP response.
    var response: HTTPURLResponse { get }
}

/// A payload and the `HTTPURLResponse` it came with: the output of PKNetwork's procedures.
public struct HTTPPayloadResponse<Payload: Sendable>: HTTPPayloadResponseProtocol {
    /// The payload.
    public var payload: Payload?
    /// The HTTP response.
    public var response: HTTPURLResponse

    /// Creates a payload response.
    public init(payload: Payload?, response: HTTPURLResponse) {
        self.payload = payload
        self.response = response
    }

    /// The response's status code.
    public var statusCode: Int { response.statusCode }
}

/// Equal when the payloads are equal and the responses are, as in ProcedureKit. Responses are equal when they have
/// the same status code and URL and Foundation's `isEqual` agrees: FoundationNetworking's `isEqual` alone takes two
/// responses that differ in status for equal.
extension HTTPPayloadResponse: Equatable where Payload: Equatable {
    /// Whether `lhs` and `rhs` have equal payloads and equal responses.
    public static func == (lhs: Self, rhs: Self) -> Bool {
        lhs.payload == rhs.payload && lhs.response.statusCode == rhs.response.statusCode
            && lhs.response.url == rhs.response.url && lhs.response == rhs.response
    }
}

extension HTTPURLResponse {
    /// The status code as an ``HTTPStatusCode``, or `nil` for a code it does not name.
    public var code: HTTPStatusCode? { HTTPStatusCode(rawValue: statusCode) }
}
