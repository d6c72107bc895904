import Foundation
import PKTesting
import Testing

@testable import PKNetwork

/// Timeouts FoundationNetworking traps on (NaN, infinite, above about 9.2e15 s: it converts them with
/// `Int(timeoutInterval) * 1000`) never reach it (issue 22 §2).
struct BadTimeoutTests {

    @Test(arguments: [
        (TimeInterval.nan, 60.0), (.infinity, 1e9), (1e19, 1e9), (-.infinity, -.infinity), (-1, -1), (0, 0),
        (0.5, 1), (1e-9, 1), (30, 30),
    ])
    func timeoutsAreMadeSafeForFoundationNetworking(timeout: TimeInterval, expected: TimeInterval) {
        #expect(NetworkRequestPreparation.safeTimeout(timeout) == expected)
    }

    /// A request with an infinite timeout, through a session whose configuration has one too, reaches the
    /// loopback server and finishes (it trapped in FoundationNetworking).
    @Test(arguments: [TimeInterval.infinity, .nan, 1e19])
    func aRequestWithAnAbsurdTimeoutRuns(timeout: TimeInterval) throws {
        let server = try #require(TestServer.start())
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = timeout
        let session = ManagedNetworkSession(configuration: configuration)
        var request = server.request("/text")
        request.timeoutInterval = timeout
        let fetch = NetworkDataProcedure(session: session, request: request)
        ProcedureQueue().add(procedure: fetch)
        #expect(waitForAll([fetch]))
        #expect(fetch.output.success?.payload == Data("hello".utf8))
    }
}
