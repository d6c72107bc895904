import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The error of a validated request whose status code was not acceptable (see
/// ``NetworkDataProcedure/validate(statusCodes:)``): it carries the status, the body and the response.
public struct HTTPStatusError: Error, Sendable, Equatable, CustomStringConvertible {
    /// The status code received.
    public let statusCode: Int
    /// The response body (for a download, the file's contents are not read: `nil`).
    public let body: Data?
    /// The response.
    public let response: HTTPURLResponse

    /// Creates a status error.
    public init(statusCode: Int, body: Data?, response: HTTPURLResponse) {
        self.statusCode = statusCode
        self.body = body
        self.response = response
    }

    /// The named status code, or `nil` for one ``HTTPStatusCode`` does not name.
    public var code: HTTPStatusCode? { HTTPStatusCode(rawValue: statusCode) }

    /// The body as UTF-8 text, when it is.
    public var bodyText: String? { body.flatMap { String(data: $0, encoding: .utf8) } }

    /// Equal when status and body are; the responses are not compared.
    public static func == (lhs: HTTPStatusError, rhs: HTTPStatusError) -> Bool {
        lhs.statusCode == rhs.statusCode && lhs.body == rhs.body
    }

    /// "HTTP status 404 Not Found" and the start of the body.
    public var description: String {
        let name = code.map(\.description) ?? "\(statusCode)"
        let text = bodyText.map { ": \($0.prefix(200))" } ?? ""
        return "HTTP status \(name)\(text)"
    }
}
