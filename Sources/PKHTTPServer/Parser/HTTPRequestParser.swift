/// An incremental HTTP/1.x request parser: a pure state machine over bytes, with no sockets, clocks or locks.
///
/// Feed it bytes as they arrive with ``append(_:)``, then call ``next()`` until it answers ``Output/needMoreBytes``:
/// each call yields at most one request, so pipelined requests come out one by one, in order. Once it reports a
/// failure it stays failed (the connection is closed after the error response).
///
/// What it accepts: a request line `METHOD SP origin-form SP HTTP/1.x` and header fields, each line ending in CRLF
/// (a bare LF is refused), empty lines before the request line ignored; a body only by `Content-Length`.
/// What it refuses: see ``HTTPParseError``; obs-fold (a header line starting with whitespace), whitespace before a
/// field's colon, a repeated `Content-Length` or `Host`, a missing `Host` in HTTP/1.1, any `Transfer-Encoding`.
struct HTTPRequestParser {

    /// The limits a request must stay within.
    struct Limits: Sendable, Equatable {
        /// The longest request line, CRLF excluded (over it: 414).
        var maxRequestLineLength: Int
        /// The longest header section, the request line and the final empty line excluded (over it: 431).
        var maxHeaderBytes: Int
        /// The most header fields (over it: 431).
        var maxHeaderCount: Int
        /// The longest body (over it: 413).
        var maxBodyBytes: Int
    }

    /// The HTTP version of a request.
    enum Version: Sendable, Equatable {
        case http10
        case http11
    }

    /// A complete request and what the connection needs to know about it.
    struct ParsedRequest: Sendable, Equatable {
        /// The request for the handler (its peer address is filled in by the connection).
        var request: HTTPRequest
        /// The request's version.
        var version: Version
        /// Whether the connection closes after the response: HTTP/1.0, or `Connection: close`.
        var closeAfterResponse: Bool
    }

    /// What ``next()`` found.
    enum Output: Sendable, Equatable {
        /// A complete request, taken out of the buffer.
        case request(ParsedRequest)
        /// No complete request in the buffer yet.
        case needMoreBytes
        /// The request is refused; the parser stays failed.
        case failure(HTTPParseError)
    }

    private enum State {
        /// Looking for the end of the head. `scanned` is where the search resumes; `lineEnd` the index of the
        /// request line's CR once found. Indices are into `buffer`, which is compacted between requests and while
        /// empty lines before a request line are dropped.
        case head(scanned: Int, lineEnd: Int?)
        /// The head is parsed; waiting for `length` bytes of body.
        case body(ParsedRequest, length: Int)
        /// A request was refused.
        case failed(HTTPParseError)
    }

    let limits: Limits
    private var state: State = .head(scanned: 0, lineEnd: nil)
    private var buffer: [UInt8] = []
    /// Where the unconsumed bytes start.
    private var start = 0

    /// Creates a parser enforcing `limits`.
    init(limits: Limits) {
        self.limits = limits
    }

    /// Whether some bytes of a request that is not complete yet have been received (the connection is then
    /// reading a request, not idle).
    var hasPartialRequest: Bool {
        switch state {
        case .head: buffer.count > start
        case .body: true
        case .failed: false
        }
    }

    /// Whether the head of the request being read is complete, asks for `Expect: 100-continue`, and its body has
    /// not all arrived: the connection then sends `100 Continue` once.
    var awaitsBodyAfterContinue: Bool {
        guard case .body(let parsed, let length) = state, buffer.count - start < length else { return false }
        return parsed.request.headers.values(for: "Expect").contains { HTTPHeaders.sameName($0, "100-continue") }
    }

    /// Adds received bytes.
    /// The bytes held and not yet consumed by a request (for tests of what the parser keeps).
    var bufferedByteCount: Int { buffer.count - start }
    /// The bytes held, consumed or not.
    var heldByteCount: Int { buffer.count }

    mutating func append(_ bytes: some Sequence<UInt8>) {
        if case .failed = state { return }
        buffer.append(contentsOf: bytes)
    }

    /// The next complete request, or that more bytes are needed, or why the request is refused.
    mutating func next() -> Output {
        switch state {
        case .failed(let error):
            return .failure(error)
        case .body(let parsed, let length):
            guard buffer.count - start >= length else { return .needMoreBytes }
            var complete = parsed
            complete.request.body = Array(buffer[start..<(start + length)])
            start += length
            finishRequest()
            return .request(complete)
        case .head(let scanned, let lineEnd):
            return scanHead(from: scanned, lineEnd: lineEnd)
        }
    }

    private mutating func fail(_ error: HTTPParseError) -> Output {
        state = .failed(error)
        buffer = []
        start = 0
        return .failure(error)
    }

    /// Back to reading a head, dropping the consumed bytes when they are worth moving the rest for.
    private mutating func finishRequest() {
        if start == buffer.count {
            buffer.removeAll(keepingCapacity: buffer.capacity <= 64 * 1024)
            start = 0
        } else if start >= 4096 {
            buffer.removeSubrange(0..<start)
            start = 0
        }
        state = .head(scanned: start, lineEnd: nil)
    }

    private mutating func scanHead(from scanned: Int, lineEnd knownLineEnd: Int?) -> Output {
        var lineEnd = knownLineEnd
        var scanned = scanned
        if lineEnd == nil {
            // Empty lines before a request line are ignored (RFC 9112, section 2.2), and dropped as they come: a
            // client sending nothing but CRLFs holds no memory (only its connection, until the read timeout).
            while buffer.count - start >= 2, buffer[start] == .cr, buffer[start + 1] == .lf { start += 2 }
            if start == buffer.count || start >= 4096 {
                buffer.removeSubrange(0..<start)
                scanned = max(0, scanned - start)
                start = 0
            }
        }
        var index = max(scanned, start)
        var headEnd: Int?
        while true {
            // The limits are checked at each position before its byte is looked at, so that the error does not
            // depend on how the bytes were split into reads.
            if let lineEnd {
                // The section so far, less the two CRLFs that may end it.
                if index - (lineEnd + 2) > limits.maxHeaderBytes + 4 { return fail(.headersTooLarge) }
            } else if index - start > limits.maxRequestLineLength + 1 {
                return fail(.requestLineTooLong)
            }
            guard index < buffer.count else { break }
            if buffer[index] == .lf {
                guard index > start, buffer[index - 1] == .cr else { return fail(.badRequest("a bare LF")) }
                if lineEnd == nil {
                    lineEnd = index - 1
                    if index - 1 - start > limits.maxRequestLineLength { return fail(.requestLineTooLong) }
                } else if buffer[index - 2] == .lf {
                    headEnd = index + 1
                    break
                }
            }
            index += 1
        }
        guard let headEnd, let lineEnd else {
            state = .head(scanned: index, lineEnd: lineEnd)
            return .needMoreBytes
        }
        // The header section: from after the request line's CRLF to before the last field's CRLF.
        let sectionStart = lineEnd + 2
        let sectionEnd = max(sectionStart, headEnd - 4)
        if sectionEnd - sectionStart > limits.maxHeaderBytes { return fail(.headersTooLarge) }
        let parsed = parseHead(line: buffer[start..<lineEnd], section: buffer[sectionStart..<sectionEnd])
        start = headEnd
        switch parsed {
        case .failure(let error):
            return fail(error)
        case .success(let (request, length)):
            if length == 0 {
                finishRequest()
                return .request(request)
            }
            state = .body(request, length: length)
            return next()
        }
    }

    /// The request described by the request line and header section, and its body's length.
    private func parseHead(
        line: ArraySlice<UInt8>, section: ArraySlice<UInt8>
    ) -> Result<(ParsedRequest, Int), HTTPParseError> {
        let parts = line.split(separator: .space, maxSplits: 3, omittingEmptySubsequences: false)
        guard parts.count == 3, !parts[0].isEmpty, !parts[1].isEmpty, !parts[2].isEmpty else {
            return .failure(.badRequest("the request line is not 'METHOD target HTTP/1.1'"))
        }
        guard parts[0].allSatisfy(\.isTokenCharacter) else { return .failure(.badRequest("an invalid method")) }
        guard parts[1].allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
            return .failure(.badRequest("an invalid character in the target"))
        }
        let version: Version
        switch Self.version(parts[2]) {
        case .success(let parsed): version = parsed
        case .failure(let error): return .failure(error)
        }

        var headers = HTTPHeaders()
        if !section.isEmpty {
            for rawLine in section.split(separator: .lf, omittingEmptySubsequences: false) {
                // Every LF was checked to follow a CR; the last line's CR is the section's end.
                let fieldLine = rawLine.last == .cr ? rawLine.dropLast() : rawLine
                guard let first = fieldLine.first else { return .failure(.badRequest("an empty header line")) }
                if first == .space || first == .tab { return .failure(.badRequest("obs-fold in a header field")) }
                guard let colon = fieldLine.firstIndex(of: .colon), colon > fieldLine.startIndex,
                    fieldLine[..<colon].allSatisfy(\.isTokenCharacter)
                else { return .failure(.badRequest("a malformed header field")) }
                var value = fieldLine[(colon + 1)...]
                while let byte = value.first, byte == .space || byte == .tab { value.removeFirst() }
                while let byte = value.last, byte == .space || byte == .tab { value.removeLast() }
                guard value.allSatisfy(\.isFieldValueCharacter) else {
                    return .failure(.badRequest("a control character in a header value"))
                }
                if headers.count == limits.maxHeaderCount { return .failure(.headersTooLarge) }
                headers.add(
                    String(decoding: fieldLine[..<colon], as: UTF8.self), String(decoding: value, as: UTF8.self))
            }
        }
        return request(
            method: String(decoding: parts[0], as: UTF8.self), target: parts[1], version: version, headers: headers)
    }

    private static func version(_ text: ArraySlice<UInt8>) -> Result<Version, HTTPParseError> {
        let bytes = Array(text)
        guard bytes.count == 8, bytes[0..<5].elementsEqual("HTTP/".utf8), bytes[6] == UInt8(ascii: "."),
            let major = bytes[5].digitValue, let minor = bytes[7].digitValue
        else { return .failure(.badRequest("an invalid HTTP version")) }
        guard major == 1 else { return .failure(.versionNotSupported) }
        return .success(minor == 0 ? .http10 : .http11)
    }

    /// The semantic checks: framing, `Host`, the target.
    private func request(
        method: String, target: ArraySlice<UInt8>, version: Version, headers: HTTPHeaders
    ) -> Result<(ParsedRequest, Int), HTTPParseError> {
        if headers.contains("Transfer-Encoding") { return .failure(.transferEncodingNotImplemented) }
        let hosts = headers.values(for: "Host").count
        if hosts > 1 || (version == .http11 && hosts == 0) {
            return .failure(.badRequest("HTTP/1.1 needs exactly one Host header"))
        }
        var length = 0
        let lengths = headers.values(for: "Content-Length")
        if lengths.count > 1 { return .failure(.badRequest("a repeated Content-Length")) }
        if let text = lengths.first {
            guard !text.isEmpty, text.utf8.allSatisfy({ $0.digitValue != nil }) else {
                return .failure(.badRequest("an invalid Content-Length"))
            }
            guard text.utf8.count <= 18, let value = Int(text), value <= limits.maxBodyBytes else {
                return .failure(.bodyTooLarge)
            }
            length = value
        }
        let decoded: (path: String, query: [HTTPQueryItem])
        switch RequestTarget.decode(target) {
        case .success(let result): decoded = result
        case .failure(let error): return .failure(error)
        }
        let wantsClose = headers.values(for: "Connection").contains { value in
            value.split(separator: ",").contains { HTTPHeaders.sameName(String($0.trimmingWhitespace()), "close") }
        }
        let request = HTTPRequest(
            method: method, path: decoded.path, queryItems: decoded.query, headers: headers, body: [],
            peerAddress: "")
        return .success(
            (
                ParsedRequest(request: request, version: version, closeAfterResponse: version == .http10 || wantsClose),
                length
            ))
    }
}

extension Substring {
    fileprivate func trimmingWhitespace() -> Substring {
        var trimmed = self
        while let first = trimmed.first, first == " " || first == "\t" { trimmed.removeFirst() }
        while let last = trimmed.last, last == " " || last == "\t" { trimmed.removeLast() }
        return trimmed
    }
}

extension UInt8 {
    static let cr = UInt8(ascii: "\r")
    static let lf = UInt8(ascii: "\n")
    static let space = UInt8(ascii: " ")
    static let tab = UInt8(ascii: "\t")
    static let colon = UInt8(ascii: ":")

    /// The byte's value as a decimal digit, or `nil`.
    var digitValue: Int? {
        (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) ? Int(self - UInt8(ascii: "0")) : nil
    }

    /// A `tchar` of RFC 9110: the characters of methods and field names.
    var isTokenCharacter: Bool {
        switch self {
        case UInt8(ascii: "a")...UInt8(ascii: "z"), UInt8(ascii: "A")...UInt8(ascii: "Z"),
            UInt8(ascii: "0")...UInt8(ascii: "9"):
            true
        default:
            "!#$%&'*+-.^_`|~".utf8.contains(self)
        }
    }

    /// A character allowed in a field value: visible ASCII, space, tab, and obs-text (0x80 and above).
    var isFieldValueCharacter: Bool {
        self == .tab || (self >= 0x20 && self != 0x7F)
    }
}
