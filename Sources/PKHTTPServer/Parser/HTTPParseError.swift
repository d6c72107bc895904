/// Why the parser refused a request; each maps to the status the server answers with before it closes the
/// connection.
enum HTTPParseError: Error, Equatable, Sendable {
    /// Malformed syntax, a `..` segment, an encoded slash or NUL, bad percent-encoding, a missing or repeated
    /// `Host`, a repeated or invalid `Content-Length`: 400.
    case badRequest(String)
    /// The request line is longer than the limit: 414.
    case requestLineTooLong
    /// The header section is longer, or has more fields, than the limits: 431.
    case headersTooLarge
    /// The `Content-Length` is over the body limit: 413.
    case bodyTooLarge
    /// The request has a `Transfer-Encoding` (chunked bodies are not supported): 501.
    case transferEncodingNotImplemented
    /// The version is not HTTP/1.x: 505.
    case versionNotSupported

    /// The status the server answers with.
    var status: HTTPStatus {
        switch self {
        case .badRequest: .badRequest
        case .requestLineTooLong: .uriTooLong
        case .headersTooLarge: .requestHeaderFieldsTooLarge
        case .bodyTooLarge: .contentTooLarge
        case .transferEncodingNotImplemented: .notImplemented
        case .versionNotSupported: .httpVersionNotSupported
        }
    }

    /// A short explanation for the response's body.
    var message: String {
        switch self {
        case .badRequest(let reason): "Bad request: \(reason)."
        case .requestLineTooLong: "The request line is too long."
        case .headersTooLarge: "The request's header fields are too large."
        case .bodyTooLarge: "The request's body is too large."
        case .transferEncodingNotImplemented: "Transfer-Encoding is not supported; send a Content-Length."
        case .versionNotSupported: "Only HTTP/1.0 and HTTP/1.1 are supported."
        }
    }
}
