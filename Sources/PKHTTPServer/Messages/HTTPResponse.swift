import Foundation

/// What a handler answers: a status, header fields and a body, or an event stream that stays open.
///
/// The server adds `Content-Length` (any the handler set is replaced), `Connection: close` when it closes the
/// connection after the response, and the configuration's default headers that the response does not set itself.
/// Header fields whose name is not a token or whose value holds a CR, LF or NUL are not sent.
public struct HTTPResponse: Sendable {

    /// A response's body.
    public enum Body: Sendable {
        /// Bytes sent at once, after the head.
        case bytes([UInt8])
        /// A `text/event-stream` kept open: after the head, the closure runs on the connection's thread with the
        /// stream to write events to, and the connection closes when it returns. See ``HTTPEventStream``.
        case eventStream(@Sendable (HTTPEventStream) -> Void)
    }

    /// The status.
    public var status: HTTPStatus

    /// The header fields the handler sets.
    public var headers: HTTPHeaders

    /// The body.
    public var body: Body

    /// Creates a response with a byte body.
    public init(status: HTTPStatus = .ok, headers: HTTPHeaders = [:], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = .bytes(body)
    }

    /// A `text/plain; charset=utf-8` response.
    public static func text(_ text: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/plain; charset=utf-8"], body: Array(text.utf8))
    }

    /// A `text/html; charset=utf-8` response.
    public static func html(_ html: String, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "text/html; charset=utf-8"], body: Array(html.utf8))
    }

    /// An `application/json` response with `json`, already encoded, as its body.
    public static func json(_ json: Data, status: HTTPStatus = .ok) -> HTTPResponse {
        HTTPResponse(status: status, headers: ["Content-Type": "application/json"], body: Array(json))
    }

    /// An `application/json` response with `value` encoded by `encoder` (sorted keys by default, so that output
    /// is stable); throws what the encoder throws.
    public static func json(
        _ value: some Encodable, status: HTTPStatus = .ok, encoder: JSONEncoder = defaultJSONEncoder()
    ) throws -> HTTPResponse {
        json(try encoder.encode(value), status: status)
    }

    /// The encoder ``json(_:status:encoder:)`` uses unless given another: sorted keys, ISO 8601 dates.
    public static func defaultJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        encoder.outputFormatting = [.sortedKeys]
        encoder.dateEncodingStrategy = .iso8601
        return encoder
    }

    /// A server-sent events response (`text/event-stream`, not cached): after the head is sent, `produce` runs on
    /// the connection's thread and writes events to the stream until the client goes, the server shuts down, or
    /// it returns; then the connection closes.
    public static func eventStream(
        headers: HTTPHeaders = [:], _ produce: @escaping @Sendable (HTTPEventStream) -> Void
    ) -> HTTPResponse {
        var response = HTTPResponse(status: .ok, headers: headers)
        response.headers["Content-Type"] = "text/event-stream"
        if !response.headers.contains("Cache-Control") { response.headers["Cache-Control"] = "no-cache" }
        response.body = .eventStream(produce)
        return response
    }
}
