/// A response's status: its code and the reason phrase written beside it on the status line.
///
/// The common statuses are static members (`.ok`, `.notFound`); any other is made with ``init(code:reason:)``.
public struct HTTPStatus: Sendable, Hashable {

    /// The three-digit status code, such as 200.
    public let code: Int

    /// The reason phrase, such as "OK". Clients ignore it; it is for people reading the exchange.
    public let reason: String

    /// Creates a status from a code from 100 to 999 and a reason phrase (CR and LF in it are replaced by spaces).
    public init(code: Int, reason: String) {
        precondition((100...999).contains(code), "an HTTP status code has three digits, not \(code)")
        self.code = code
        self.reason = String(reason.map { $0 == "\r" || $0 == "\n" ? " " : $0 })
    }

    /// 200 OK.
    public static let ok = HTTPStatus(code: 200, reason: "OK")
    /// 201 Created.
    public static let created = HTTPStatus(code: 201, reason: "Created")
    /// 202 Accepted.
    public static let accepted = HTTPStatus(code: 202, reason: "Accepted")
    /// 204 No Content: the response has no body, and none is sent.
    public static let noContent = HTTPStatus(code: 204, reason: "No Content")
    /// 301 Moved Permanently.
    public static let movedPermanently = HTTPStatus(code: 301, reason: "Moved Permanently")
    /// 303 See Other.
    public static let seeOther = HTTPStatus(code: 303, reason: "See Other")
    /// 304 Not Modified: the response has no body, and none is sent.
    public static let notModified = HTTPStatus(code: 304, reason: "Not Modified")
    /// 400 Bad Request.
    public static let badRequest = HTTPStatus(code: 400, reason: "Bad Request")
    /// 401 Unauthorized.
    public static let unauthorized = HTTPStatus(code: 401, reason: "Unauthorized")
    /// 403 Forbidden.
    public static let forbidden = HTTPStatus(code: 403, reason: "Forbidden")
    /// 404 Not Found.
    public static let notFound = HTTPStatus(code: 404, reason: "Not Found")
    /// 405 Method Not Allowed.
    public static let methodNotAllowed = HTTPStatus(code: 405, reason: "Method Not Allowed")
    /// 408 Request Timeout: the server's reply to a request not received within the read timeout.
    public static let requestTimeout = HTTPStatus(code: 408, reason: "Request Timeout")
    /// 409 Conflict.
    public static let conflict = HTTPStatus(code: 409, reason: "Conflict")
    /// 413 Content Too Large: the server's reply to a body over the configured limit.
    public static let contentTooLarge = HTTPStatus(code: 413, reason: "Content Too Large")
    /// 414 URI Too Long: the server's reply to a request line over the configured limit.
    public static let uriTooLong = HTTPStatus(code: 414, reason: "URI Too Long")
    /// 422 Unprocessable Content.
    public static let unprocessableContent = HTTPStatus(code: 422, reason: "Unprocessable Content")
    /// 429 Too Many Requests.
    public static let tooManyRequests = HTTPStatus(code: 429, reason: "Too Many Requests")
    /// 431 Request Header Fields Too Large: the server's reply to a header section over the configured limits.
    public static let requestHeaderFieldsTooLarge = HTTPStatus(code: 431, reason: "Request Header Fields Too Large")
    /// 500 Internal Server Error.
    public static let internalServerError = HTTPStatus(code: 500, reason: "Internal Server Error")
    /// 501 Not Implemented: the server's reply to a request with a `Transfer-Encoding` (chunked bodies are not
    /// supported).
    public static let notImplemented = HTTPStatus(code: 501, reason: "Not Implemented")
    /// 503 Service Unavailable: the server's reply to a connection over the configured cap.
    public static let serviceUnavailable = HTTPStatus(code: 503, reason: "Service Unavailable")
    /// 505 HTTP Version Not Supported: the server's reply to a request in a version other than HTTP/1.x.
    public static let httpVersionNotSupported = HTTPStatus(code: 505, reason: "HTTP Version Not Supported")

    /// Whether a response with this status never has a body (1xx, 204 and 304).
    var forbidsBody: Bool { code < 200 || code == 204 || code == 304 }
}
