import Foundation
import PKNetwork
import PKTesting
import Testing

// FoundationNetworking starts a request's timeout when its task is resumed, even while the task waits for one of the
// session's `httpMaximumConnectionsPerHost` connections. These tests hold the only connection of a session with a
// request the server keeps until it is told to release it, so a second request waits for the slot for as long as the
// test wants: the outcomes below do not depend on how fast the machine is.

/// A session with one connection per host and a 4 s request timeout (the session's timeout is the one
/// FoundationNetworking applies, not the request's). FoundationNetworking applies it to the hold too, as an idle
/// timeout between the server's keep-alive bytes every 100 ms: 4 s keeps a stalled, loaded machine from ending the
/// hold early, and gives a retried attempt room for its whole round trip.
func oneConnectionSession() -> ManagedNetworkSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = 1
    configuration.timeoutIntervalForRequest = 4
    return ManagedNetworkSession(configuration: configuration)
}

/// Suspends until the server has had `expected` requests for `key`; records an issue after the hang timeout.
func waitForRequests(_ server: TestServer, key: String, _ expected: Int) async throws {
    let deadline = Date().addingTimeInterval(hangTimeout)
    while try await requestCount(server, key: key) < expected {
        guard Date() < deadline else {
            Issue.record("the server never had \(expected) requests for \(key)")
            return
        }
        try await Task.sleep(for: .milliseconds(10))
    }
}

/// Tells the server to end the hold on `key`.
func release(_ server: TestServer, key: String) -> NetworkDataProcedure {
    NetworkDataProcedure(session: testSession, request: server.request("/release/\(key)"))
}

/// A request on `session` that holds its connection until `release(_:key:)`, running, and seen by the server.
func holdTheOnlyConnection(
    _ server: TestServer, session: ManagedNetworkSession, key: String
) async throws -> NetworkDataProcedure {
    let hold = NetworkDataProcedure(session: session, request: server.request("/hold/\(key)", timeout: 120))
    ProcedureQueue().add(procedure: hold)
    try await waitForRequests(server, key: key, 1)
    return hold
}

struct ConnectionSlotTests {

    @Test func requestWaitingForAConnectionSlotTimesOutWithoutReachingTheServer() async throws {
        let server = try #require(TestServer.start())
        let session = oneConnectionSession()
        let holdKey = uniqueKey("hold")
        let hold = try await holdTheOnlyConnection(server, session: session, key: holdKey)

        let key = uniqueKey()
        let waiting = NetworkDataProcedure(session: session, request: server.request("/sequence/\(key)", timeout: 4))
        await run(waiting)
        let timedOut = urlErrorCode(waiting.error) == .timedOut
        #expect(timedOut)

        await run(release(server, key: holdKey))
        await finished([hold])
        #expect(hold.output.success?.statusCode == 200)
        #expect(try await requestCount(server, key: key) == 0)
    }

    @Test func idempotentRequestTimedOutWaitingForASlotIsRetriedOnceTheSlotIsFree() async throws {
        let server = try #require(TestServer.start())
        let session = oneConnectionSession()
        let holdKey = uniqueKey("hold")
        let hold = try await holdTheOnlyConnection(server, session: session, key: holdKey)

        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 2), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: session, request: server.request("/sequence/\(key)", timeout: 4))
        }
        // The second attempt releases the held connection and waits for it to be given back.
        let first = Box<ObjectIdentifier?>(fetch.current.map(ObjectIdentifier.init))
        let releaseQueue = ProcedureQueue()
        fetch.appendConfigureBlock { attempt in
            guard ObjectIdentifier(attempt) != first.value else { return }
            attempt.addDependency(hold)
            releaseQueue.add(procedure: release(server, key: holdKey))
        }
        await run(fetch)

        let succeeded = fetch.errors.isEmpty
        #expect(succeeded)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.statusCode == 200)
        #expect(hold.output.success?.statusCode == 200)
        // Only the retry reached the server: the attempt that timed out was never sent.
        #expect(try await requestCount(server, key: key) == 1)
    }

    @Test func postTimedOutWaitingForASlotIsNotRetried() async throws {
        let server = try #require(TestServer.start())
        let session = oneConnectionSession()
        let holdKey = uniqueKey("hold")
        let hold = try await holdTheOnlyConnection(server, session: session, key: holdKey)

        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 3), monitor: connectedMonitor()) {
            NetworkDataProcedure(
                session: session, request: server.request("/sequence/\(key)", method: "POST", timeout: 4))
        }
        await run(fetch)
        let timedOut = urlErrorCode(fetch.error) == .timedOut
        #expect(timedOut)
        #expect(fetch.count == 1)

        await run(release(server, key: holdKey))
        await finished([hold])
        #expect(try await requestCount(server, key: key) == 0)
    }
}
