import Testing

@testable import PKHTTPServer

@Suite struct HTTPRequestParserTests {

    static let postWithBody = Array(
        "POST /api/jobs?queue=mail HTTP/1.1\r\nHost: localhost\r\nContent-Length: 5\r\nX-Tag:  a b \r\n\r\nhello".utf8)

    @Test func parsesMethodPathQueryHeadersAndBody() throws {
        let outputs = parse(Self.postWithBody)
        let parsed = try #require(requests(outputs).first)
        #expect(outputs.count == 2)
        #expect(parsed.request.method == "POST")
        #expect(parsed.request.path == "/api/jobs")
        #expect(parsed.request.queryItems == [HTTPQueryItem(name: "queue", value: "mail")])
        #expect(parsed.request.headers["host"] == "localhost")
        #expect(parsed.request.headers["X-TAG"] == "a b")
        #expect(parsed.request.body == Array("hello".utf8))
        #expect(parsed.version == .http11)
        #expect(!parsed.closeAfterResponse)
    }

    @Test func splittingAtEveryByteBoundaryGivesTheSameRequest() {
        let whole = parse(Self.postWithBody)
        for split in 0...Self.postWithBody.count {
            #expect(parse(Self.postWithBody, chunks: [split, Self.postWithBody.count]) == whole, "split at \(split)")
        }
        #expect(parse(Self.postWithBody, chunks: Array(repeating: 1, count: Self.postWithBody.count)) == whole)
    }

    @Test func pipelinedRequestsComeOutOneByOneInOrder() {
        let text =
            "GET /1 HTTP/1.1\r\nHost: a\r\n\r\n" + "POST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\n\r\nok"
            + "GET /3 HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\nGET /4 HTT"
        let outputs = parse(text)
        #expect(requests(outputs).map(\.request.path) == ["/1", "/2", "/3"])
        #expect(requests(outputs).map(\.closeAfterResponse) == [false, false, true])
        #expect(outputs.last == .needMoreBytes)
    }

    @Test func pipelinedRequestsSurviveEverySplit() {
        let bytes = Array(
            ("GET /1 HTTP/1.1\r\nHost: a\r\n\r\n\r\nPOST /2 HTTP/1.1\r\nHost: a\r\nContent-Length: 3\r\n\r\nabc"
                + "GET /3 HTTP/1.0\r\n\r\n").utf8)
        let whole = parse(bytes)
        #expect(requests(whole).count == 3)
        for first in 0...bytes.count {
            for second in stride(from: first, through: bytes.count, by: 7) {
                #expect(parse(bytes, chunks: [first, second - first, bytes.count]) == whole)
            }
        }
    }

    @Test func emptyLinesBeforeARequestAreIgnored() {
        #expect(requests(parse("\r\n\r\nGET / HTTP/1.1\r\nHost: a\r\n\r\n")).count == 1)
    }

    @Test func aStreamOfEmptyLinesHoldsNoMemory() {
        var parser = HTTPRequestParser(limits: testLimits)
        let emptyLines = Array(String(repeating: "\r\n", count: 4_096).utf8)
        for _ in 0..<1_000 {
            parser.append(emptyLines)
            let output = parser.next()
            #expect(output == .needMoreBytes)
        }
        #expect(parser.heldByteCount <= 4_096)
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .request(let parsed) = parser.next() else {
            Issue.record("no request after the empty lines")
            return
        }
        #expect(parsed.request.path == "/")
    }

    @Test func http10ClosesAfterTheResponseAndNeedsNoHost() throws {
        let parsed = try #require(requests(parse("GET / HTTP/1.0\r\n\r\n")).first)
        #expect(parsed.version == .http10)
        #expect(parsed.closeAfterResponse)
    }

    @Test func connectionCloseIsHonouredInAnyCaseAndList() throws {
        let parsed = try #require(
            requests(parse("GET / HTTP/1.1\r\nHost: a\r\nConnection: keep-alive, CLOSE\r\n\r\n")).first)
        #expect(parsed.closeAfterResponse)
    }

    @Test(arguments: [
        ("GET /\r\n\r\n", "no version"),
        ("GET  / HTTP/1.1\r\nHost: a\r\n\r\n", "two spaces"),
        ("GET / HTTP/1.1 extra\r\nHost: a\r\n\r\n", "four parts"),
        ("G@T / HTTP/1.1\r\nHost: a\r\n\r\n", "a method that is not a token"),
        ("GET / HTTQ/1.1\r\nHost: a\r\n\r\n", "not HTTP"),
        ("GET / HTTP/1.10\r\nHost: a\r\n\r\n", "a version of three digits"),
        ("GET http://a/ HTTP/1.1\r\nHost: a\r\n\r\n", "absolute form"),
        ("GET /a\u{7F} HTTP/1.1\r\nHost: a\r\n\r\n", "a control character in the target"),
        ("GET /a#b HTTP/1.1\r\nHost: a\r\n\r\n", "a fragment"),
        ("GET / HTTP/1.1\nHost: a\r\n\r\n", "a bare LF after the request line"),
        ("GET / HTTP/1.1\r\nHost: a\n\r\n", "a bare LF after a field"),
        ("\nGET / HTTP/1.1\r\nHost: a\r\n\r\n", "a bare LF first"),
        ("GET / HTTP/1.1\r\nHost: a\r\nNoColon\r\n\r\n", "a field without a colon"),
        ("GET / HTTP/1.1\r\nHost: a\r\nName : v\r\n\r\n", "whitespace before the colon"),
        ("GET / HTTP/1.1\r\nHost: a\r\n: v\r\n\r\n", "an empty field name"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\r\n  folded\r\n\r\n", "obs-fold"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\0b\r\n\r\n", "a NUL in a value"),
        ("GET / HTTP/1.1\r\nHost: a\r\nX: a\rb\r\n\r\n", "a bare CR in a value"),
        ("GET / HTTP/1.1\r\n\r\n", "HTTP/1.1 without Host"),
        ("GET / HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", "two Hosts"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 2\r\n\r\nab", "a repeated length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2\r\nContent-Length: 3\r\n\r\nab", "two lengths"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 2, 2\r\n\r\nab", "a length list"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: -1\r\n\r\n", "a negative length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: +2\r\n\r\nab", "a signed length"),
        ("POST / HTTP/1.1\r\nHost: a\r\nContent-Length:\r\n\r\n", "an empty length"),
        ("GET /../etc/passwd HTTP/1.1\r\nHost: a\r\n\r\n", "a '..' segment"),
        ("GET /a/%2e%2E/b HTTP/1.1\r\nHost: a\r\n\r\n", "an encoded '..' segment"),
        ("GET /a/.. HTTP/1.1\r\nHost: a\r\n\r\n", "a final '..' segment"),
        ("GET /a%2fb HTTP/1.1\r\nHost: a\r\n\r\n", "an encoded slash"),
        ("GET /a%5Cb HTTP/1.1\r\nHost: a\r\n\r\n", "an encoded backslash"),
        ("GET /a%00 HTTP/1.1\r\nHost: a\r\n\r\n", "an encoded NUL in the path"),
        ("GET /?a=%00 HTTP/1.1\r\nHost: a\r\n\r\n", "an encoded NUL in the query"),
        ("GET /a%zz HTTP/1.1\r\nHost: a\r\n\r\n", "invalid percent-encoding"),
        ("GET /a%4 HTTP/1.1\r\nHost: a\r\n\r\n", "truncated percent-encoding"),
        ("GET /?q=%g1 HTTP/1.1\r\nHost: a\r\n\r\n", "invalid percent-encoding in the query"),
        ("GET /%ff HTTP/1.1\r\nHost: a\r\n\r\n", "a path that is not UTF-8"),
    ])
    func malformedRequestsAreBadRequests(text: String, why: String) {
        guard case .badRequest = firstFailure(parse(text)) else {
            Issue.record("\(why): \(parse(text))")
            return
        }
    }

    @Test func otherMajorVersionsAreNotSupported() {
        #expect(firstFailure(parse("GET / HTTP/2.0\r\nHost: a\r\n\r\n")) == .versionNotSupported)
        #expect(firstFailure(parse("GET / HTTP/0.9\r\nHost: a\r\n\r\n")) == .versionNotSupported)
    }

    @Test func transferEncodingIsNotImplemented() {
        let text = "POST / HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
        #expect(firstFailure(parse(text)) == .transferEncodingNotImplemented)
    }

    @Test func aLongRequestLineIsRefusedBeforeItEnds() {
        let line = "GET /" + String(repeating: "a", count: 80)
        #expect(firstFailure(parse(line)) == .requestLineTooLong)
        #expect(firstFailure(parse(line + " HTTP/1.1\r\nHost: a\r\n\r\n")) == .requestLineTooLong)
    }

    @Test func aRequestLineAtTheLimitIsAccepted() {
        let target = "/" + String(repeating: "a", count: 64 - "GET  HTTP/1.1".count - 1)
        let text = "GET \(target) HTTP/1.1\r\nHost: a\r\n\r\n"
        #expect(requests(parse(text)).count == 1)
    }

    @Test func largeHeadersAreRefusedBeforeTheyEnd() {
        let field = "X-Big: " + String(repeating: "b", count: 300) + "\r\n"
        #expect(firstFailure(parse("GET / HTTP/1.1\r\n" + field)) == .headersTooLarge)
        #expect(firstFailure(parse("GET / HTTP/1.1\r\nHost: a\r\n" + field + "\r\n")) == .headersTooLarge)
    }

    @Test func tooManyHeaderFieldsAreRefused() {
        let fields = (0..<9).map { "X-\($0): v\r\n" }.joined()
        #expect(firstFailure(parse("GET / HTTP/1.1\r\nHost: a\r\n" + fields + "\r\n")) == .headersTooLarge)
    }

    @Test func aBodyOverTheLimitIsRefusedFromItsLength() {
        #expect(firstFailure(parse("POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 33\r\n\r\n")) == .bodyTooLarge)
        let huge = "POST / HTTP/1.1\r\nHost: a\r\nContent-Length: 99999999999999999999999\r\n\r\n"
        #expect(firstFailure(parse(huge)) == .bodyTooLarge)
    }

    @Test func aParserThatFailedStaysFailed() {
        var parser = HTTPRequestParser(limits: testLimits)
        parser.append(Array("BAD\r\n\r\n".utf8))
        guard case .failure = parser.next() else {
            Issue.record("expected a failure")
            return
        }
        parser.append(Array("GET / HTTP/1.1\r\nHost: a\r\n\r\n".utf8))
        guard case .failure = parser.next() else {
            Issue.record("expected the failure again")
            return
        }
        #expect(!parser.hasPartialRequest)
    }

    @Test func partialRequestsAreReported() {
        var parser = HTTPRequestParser(limits: testLimits)
        #expect(!parser.hasPartialRequest)
        parser.append(Array("POST / HTTP/1.1\r\nHost: a\r\nExpect: 100-continue\r\nContent-Length: 2\r\n\r\n".utf8))
        #expect(parser.next() == .needMoreBytes)
        #expect(parser.hasPartialRequest)
        #expect(parser.awaitsBodyAfterContinue)
        parser.append(Array("ok".utf8))
        #expect(requests([parser.next()]).count == 1)
        #expect(!parser.hasPartialRequest)
        #expect(!parser.awaitsBodyAfterContinue)
    }

    @Test func randomlyMutatedRequestsParseAlikeWholeAndInPieces() {
        var generator = SeededGenerator(seed: 0x5EED_0036)
        for _ in 0..<5_000 {
            let bytes = RequestMutator.mutated(using: &generator)
            let whole = parse(bytes)
            var sizes: [Int] = []
            var left = bytes.count
            while left > 0 {
                let size = Int.random(in: 1...max(1, min(left, 40)), using: &generator)
                sizes.append(size)
                left -= size
            }
            let pieces = parse(bytes, chunks: sizes.isEmpty ? nil : sizes)
            #expect(whole == pieces, "\(bytes) in \(sizes)")
        }
    }
}
