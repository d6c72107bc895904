import PKHTTPServer
import Testing

/// The catalogue's example (Sources/PKHTTPServer/PKHTTPServer.docc/PKHTTPServer.md), compiled and run; among the
/// server's serialized tests, so that its descriptors do not meet the count of the randomized test.
extension HTTPServerTests {

    @Test func theOverviewExampleServesAndStops() throws {
        let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 0)) { request in
            switch (request.method, request.path) {
            case ("GET", "/health"): .text("ok")
            case ("GET", "/api/echo"): .text(request.queryValue("say") ?? "")
            default: .text("not found", status: .notFound)
            }
        }
        try server.start()
        print("listening on port", server.port ?? 0)
        let client = try TestClient(port: try #require(server.port))
        client.send(get("/api/echo?say=hello+there"))
        #expect(client.readResponse()?.text == "hello there")
        client.send(get("/health"))
        #expect(client.readResponse()?.text == "ok")
        client.send(get("/nothing"))
        #expect(client.readResponse()?.status == 404)
        server.shutdown()
    }
}
