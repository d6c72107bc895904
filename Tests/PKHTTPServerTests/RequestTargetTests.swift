import Testing

@testable import PKHTTPServer

@Suite struct RequestTargetTests {

    private func decode(_ target: String) -> (path: String, query: [HTTPQueryItem])? {
        try? RequestTarget.decode(ArraySlice(target.utf8)).get()
    }

    @Test(arguments: [
        ("/", "/"),
        ("/jobs", "/jobs"),
        ("/jobs/", "/jobs/"),
        ("/a//b/./c/", "/a/b/c/"),
        ("//", "/"),
        ("/./", "/"),
        ("/a%20b", "/a b"),
        ("/caf%C3%A9", "/café"),
        ("/a+b", "/a+b"),
        ("/..a/b..", "/..a/b.."),
    ])
    func pathsAreDecodedAndNormalised(target: String, path: String) {
        #expect(decode(target)?.path == path)
    }

    @Test func queryItemsAreDecodedInOrder() {
        let query = decode("/?a=1&b=x+y&c&d=%26%3D&&a=2&e=")?.query
        #expect(
            query == [
                HTTPQueryItem(name: "a", value: "1"), HTTPQueryItem(name: "b", value: "x y"),
                HTTPQueryItem(name: "c", value: ""), HTTPQueryItem(name: "d", value: "&="),
                HTTPQueryItem(name: "a", value: "2"), HTTPQueryItem(name: "e", value: ""),
            ])
    }

    @Test(arguments: ["/..", "/a/../b", "/%2E%2e", "/a%2F..", "/a%2f", "/%5c", "/%00", "/%", "/%a", "/%C3", "x"])
    func unsafeOrInvalidTargetsAreRefused(target: String) {
        #expect(decode(target) == nil)
    }

    @Test func aRequestCanBeMadeForAHandlerTest() {
        let request = HTTPRequest(method: "GET", path: "/jobs/42/", queryItems: [HTTPQueryItem(name: "q", value: "1")])
        #expect(request.pathSegments == ["jobs", "42"])
        #expect(request.queryValue("q") == "1")
        #expect(request.queryValue("r") == nil)
    }
}
