import Foundation
import Testing

@testable import PKHTTPServer

extension HTTPServerTests {

    /// How many random requests the randomized test sends: `PK_HTTP_FUZZ_COUNT`, or 2,000.
    static let fuzzCount = ProcessInfo.processInfo.environment["PK_HTTP_FUZZ_COUNT"].flatMap(Int.init) ?? 2_000

    @Test func randomMalformedRequestsNeverStopTheServerNorLeakDescriptors() throws {
        let seed = UInt64.random(in: 0...UInt64.max)
        var generator = SeededGenerator(seed: seed)
        let server = HTTPServer(configuration: fuzzConfiguration()) { request in .text("ok \(request.path)") }
        try server.start()
        let port = try #require(server.port)
        for round in 0..<Self.fuzzCount {
            let bytes = RequestMutator.mutated(using: &generator)
            let client = try TestClient(port: port)
            client.send(bytes)
            client.finishSending()
            // Every answer is a whole response with a status the server may give a stranger, then the close.
            while let response = client.readResponse() {
                let allowed = [200, 400, 408, 413, 414, 431, 501, 505]
                #expect(allowed.contains(response.status), "seed \(seed), round \(round): \(bytes)")
                if response.status != 200 { #expect(response.headers["Connection"] == "close") }
            }
            #expect(client.waitForClose(), "seed \(seed), round \(round): \(bytes)")
        }
        do {
            let good = try TestClient(port: port)
            good.send(get("/after"))
            #expect(good.readResponse()?.text == "ok /after")
        }
        #expect(server.shutdown())
        // The server's own sockets, exactly: none is left once it stopped (a count of every descriptor of the
        // process would move with other suites running beside this one).
        if let left = serverSocketCount(port: port) {
            #expect(left == 0, "\(left) socket(s) of the server left open")
        }
    }

    private func fuzzConfiguration() -> HTTPServer.Configuration {
        var configuration = HTTPServer.Configuration()
        configuration.readTimeout = .milliseconds(200)
        configuration.maxRequestLineLength = 128
        configuration.maxHeaderBytes = 256
        configuration.maxBodyBytes = 64
        return configuration
    }
}
