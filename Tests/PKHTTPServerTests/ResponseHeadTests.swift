import Testing

@testable import PKHTTPServer

@Suite struct ResponseHeadTests {

    private func head(
        _ status: HTTPStatus = .ok, _ headers: HTTPHeaders = [:], defaults: HTTPHeaders = [:],
        framing: ResponseHead.Framing = .length(5), close: Bool = false
    ) -> String {
        String(
            decoding: ResponseHead.serialize(
                status: status, headers: headers, defaults: defaults, framing: framing, close: close),
            as: UTF8.self)
    }

    @Test func theServerOwnsTheFramingFields() {
        let text = head(.ok, ["Content-Length": "99", "Transfer-Encoding": "chunked", "Connection": "keep-alive"])
        #expect(text == "HTTP/1.1 200 OK\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func defaultsApplyUnlessTheResponseSetsTheField() {
        let text = head(
            .ok, ["content-security-policy": "none"],
            defaults: ["Content-Security-Policy": "default-src 'self'", "X-Frame-Options": "DENY"], close: true)
        #expect(
            text == "HTTP/1.1 200 OK\r\ncontent-security-policy: none\r\nX-Frame-Options: DENY\r\n"
                + "Content-Length: 5\r\nConnection: close\r\n\r\n")
    }

    @Test func fieldsThatCouldSplitTheResponseAreNotSent() {
        let text = head(.ok, ["X-Evil": "a\r\nSet-Cookie: b", "Bad Name": "v", "X-Good": "v"])
        #expect(text == "HTTP/1.1 200 OK\r\nX-Good: v\r\nContent-Length: 5\r\n\r\n")
    }

    @Test func noContentHasNoLengthAndAStreamClosesTheConnection() {
        #expect(head(.noContent, framing: .length(0)) == "HTTP/1.1 204 No Content\r\n\r\n")
        #expect(head(.ok, framing: .untilClose) == "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n")
    }

    @Test func headersAreLookedUpWithoutRegardToCase() {
        var headers: HTTPHeaders = ["Set-Cookie": "a", "set-cookie": "b"]
        #expect(headers.values(for: "SET-COOKIE") == ["a", "b"])
        headers["Set-cookie"] = "c"
        #expect(headers == ["Set-cookie": "c"])
        headers["SET-COOKIE"] = nil
        #expect(headers.count == 0)
    }
}
