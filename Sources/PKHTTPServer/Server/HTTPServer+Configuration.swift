extension HTTPServer {

    /// Where a server listens, its limits and timeouts, and the header fields added to every response.
    ///
    /// The defaults suit a dashboard on the loopback interface; tests shorten the timeouts.
    public struct Configuration: Sendable {

        /// The address to bind: a numeric IPv4 or IPv6 address (`"127.0.0.1"`, `"::1"`, `"0.0.0.0"`) or a name
        /// `getaddrinfo` resolves (its first address is used). Default `"127.0.0.1"`: only this machine.
        public var host: String

        /// The port to bind; 0 (the default) lets the system choose one, read back with ``HTTPServer/port``.
        public var port: UInt16

        /// The most connections open at once; a connection accepted beyond it is answered `503 Service
        /// Unavailable` and closed at once. Each open connection has a thread of its own. Default 64.
        public var maxConnections: Int

        /// The length of the kernel's queue of connections not yet accepted (`listen(2)`). Default 128.
        public var backlog: Int

        /// The longest request line, CRLF excluded; over it the answer is `414 URI Too Long`. Default 8 KiB.
        public var maxRequestLineLength: Int

        /// The longest header section (the request line and the final empty line excluded); over it the answer is
        /// `431 Request Header Fields Too Large`. Default 32 KiB.
        public var maxHeaderBytes: Int

        /// The most header fields in a request; over it the answer is 431. Default 100.
        public var maxHeaderCount: Int

        /// The longest request body (`Content-Length`); over it the answer is `413 Content Too Large`, sent
        /// without reading the body. Default 1 MiB.
        public var maxBodyBytes: Int

        /// How long a client has to send a whole request, head and body, from its first byte (from the accept
        /// for a connection's first request); past it the answer is `408 Request Timeout` and the connection
        /// closes. Default 10 s.
        public var readTimeout: Duration

        /// How long a kept-alive connection may wait for its next request before it is closed. Default 30 s.
        public var idleTimeout: Duration

        /// How long writing one response (or one event) may take before the connection is closed. Default 10 s.
        public var writeTimeout: Duration

        /// How long ``HTTPServer/shutdown()`` waits for handlers in flight before it shuts their sockets down and
        /// returns. Default 5 s.
        public var shutdownTimeout: Duration

        /// Header fields added to every response that does not set them itself, the server's own error answers
        /// included (security headers such as `Content-Security-Policy`, for instance). Default none.
        public var defaultHeaders: HTTPHeaders

        /// Creates a configuration for `host`:`port`, with the defaults above.
        public init(host: String = "127.0.0.1", port: UInt16 = 0) {
            self.host = host
            self.port = port
            maxConnections = 64
            backlog = 128
            maxRequestLineLength = 8 * 1024
            maxHeaderBytes = 32 * 1024
            maxHeaderCount = 100
            maxBodyBytes = 1024 * 1024
            readTimeout = .seconds(10)
            idleTimeout = .seconds(30)
            writeTimeout = .seconds(10)
            shutdownTimeout = .seconds(5)
            defaultHeaders = [:]
        }

        /// The parser's limits.
        var limits: HTTPRequestParser.Limits {
            HTTPRequestParser.Limits(
                maxRequestLineLength: maxRequestLineLength, maxHeaderBytes: maxHeaderBytes,
                maxHeaderCount: maxHeaderCount, maxBodyBytes: maxBodyBytes)
        }
    }
}
