import Foundation

/// A request as the server hands it to the handler: parsed, checked against the limits, its path decoded and
/// normalised.
///
/// The path never contains a `..` segment, an encoded slash or backslash, or a NUL: the server answers such
/// requests with 400 itself. Requests may be made directly (``init(method:path:queryItems:headers:body:peerAddress:)``)
/// to test a handler without a socket.
public struct HTTPRequest: Sendable, Equatable {

    /// The method, as sent (methods are case-sensitive): `GET`, `POST`, …
    public var method: String

    /// The decoded, normalised path: it starts with `/`, has no empty, `.` or `..` segments, and keeps a trailing
    /// slash when the request had one (`/jobs/`). Percent-encoded bytes are decoded (`/a%20b` is `/a b`).
    public var path: String

    /// The query's items, decoded (`+` is a space), in order; a name may appear more than once.
    public var queryItems: [HTTPQueryItem]

    /// The header fields, in the order received.
    public var headers: HTTPHeaders

    /// The body: the `Content-Length` bytes that followed the head (empty when there were none).
    public var body: [UInt8]

    /// The client's address and port, such as `127.0.0.1:52044` or `[::1]:52044`.
    public var peerAddress: String

    /// Creates a request, for instance to call a handler in a test.
    public init(
        method: String, path: String, queryItems: [HTTPQueryItem] = [], headers: HTTPHeaders = [:],
        body: [UInt8] = [], peerAddress: String = "127.0.0.1:0"
    ) {
        self.method = method
        self.path = path
        self.queryItems = queryItems
        self.headers = headers
        self.body = body
        self.peerAddress = peerAddress
    }

    /// The value of the first query item called `name`, or `nil`.
    public func queryValue(_ name: String) -> String? {
        queryItems.first { $0.name == name }?.value
    }

    /// The path's segments, decoded: `/jobs/42/` is `["jobs", "42"]`.
    public var pathSegments: [Substring] {
        path.split(separator: "/")
    }

    /// The body as `Data`.
    public var bodyData: Data { Data(body) }

    /// The body decoded as UTF-8 (invalid sequences replaced).
    public var bodyText: String { String(decoding: body, as: UTF8.self) }
}
