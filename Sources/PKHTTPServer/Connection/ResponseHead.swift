/// Writes a response's status line and header fields: the handler's fields, then the configured defaults the
/// response does not set, then the framing fields the server owns (`Content-Length`, `Connection`).
enum ResponseHead {

    /// The header fields the server owns; the handler's are dropped.
    private static let framingFields = ["Content-Length", "Transfer-Encoding", "Connection"]

    /// How the body is delimited.
    enum Framing: Equatable {
        /// `Content-Length: count` (not written for a status that forbids a body).
        case length(Int)
        /// Until the connection closes (an event stream).
        case untilClose
    }

    /// The head's bytes, up to and including the empty line.
    static func serialize(
        status: HTTPStatus, headers: HTTPHeaders, defaults: HTTPHeaders, framing: Framing, close: Bool
    ) -> [UInt8] {
        var text = "HTTP/1.1 \(status.code) \(status.reason)\r\n"
        var written = HTTPHeaders()
        for field in headers where !framingFields.contains(where: { HTTPHeaders.sameName($0, field.name) }) {
            written.add(field.name, field.value)
        }
        for field in defaults where !written.contains(field.name) && !framingFields.contains(field.name) {
            written.add(field.name, field.value)
        }
        for field in written where isValid(field) {
            text += "\(field.name): \(field.value)\r\n"
        }
        if case .length(let count) = framing, !status.forbidsBody {
            text += "Content-Length: \(count)\r\n"
        }
        if close || framing == .untilClose { text += "Connection: close\r\n" }
        text += "\r\n"
        return Array(text.utf8)
    }

    /// A field whose name is a token and whose value has no CR, LF, NUL or other control character but tab.
    static func isValid(_ field: (name: String, value: String)) -> Bool {
        !field.name.isEmpty && field.name.utf8.allSatisfy(\.isTokenCharacter)
            && field.value.utf8.allSatisfy(\.isFieldValueCharacter)
    }

    /// A complete plain-text response the server writes itself (errors, 503), closing the connection.
    static func errorResponse(_ status: HTTPStatus, message: String, defaults: HTTPHeaders) -> [UInt8] {
        let body = Array((message + "\n").utf8)
        let headers: HTTPHeaders = ["Content-Type": "text/plain; charset=utf-8", "Cache-Control": "no-store"]
        return serialize(
            status: status, headers: headers, defaults: defaults, framing: .length(body.count), close: true)
            + body
    }
}
