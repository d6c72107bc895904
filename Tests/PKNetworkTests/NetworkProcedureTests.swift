import Foundation
import PKNetwork
import PKTesting
import Testing

/// A resilience that retries at once, so that tests wait for nothing but the server.
func quickResilience(
    attempts: Int = 3, timeout: TimeInterval? = nil, retriesNonIdempotent: Bool = false,
    backoff: WaitStrategy = .immediate
) -> DefaultNetworkResilience {
    DefaultNetworkResilience(
        maximumNumberOfAttempts: attempts, backoffStrategy: backoff, requestTimeout: timeout,
        retriesNonIdempotentRequests: retriesNonIdempotent)
}

/// A monitor whose fake provider reports the network up, so that connection failures are simply retried.
func connectedMonitor() -> ConnectivityMonitor {
    ConnectivityMonitor(provider: FakeConnectivityProvider(status: .reachable(.ethernetOrWiFi)))
}

/// How many requests the server had for `key`'s sequence.
func requestCount(_ server: TestServer, key: String) async throws -> Int {
    let count = NetworkDataProcedure(session: testSession, request: server.request("/count/\(key)"))
    await run(count)
    return Int(String(decoding: try #require(count.output.success?.payload), as: UTF8.self)) ?? -1
}

struct NetworkProcedureTests {

    @Test func serverErrorThenSuccessTakesTwoAttempts() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=500,200"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.statusCode == 200)
    }

    @Test(arguments: [408, 429, 502, 503, 504])
    func retryableStatusIsRetried(status: Int) async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=\(status),200"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
    }

    @Test func attemptsRunningOutFailWithReceivedErrorStatusCode() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 3), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=503"))
        }
        await run(fetch)
        #expect(fetch.count == 3)
        #expect(fetch.error as? ProcedureKitNetworkResiliencyError == .receivedErrorStatusCode(.serviceUnavailable))
        #expect(try await requestCount(server, key: key) == 3)
    }

    @Test func nonRetryableClientErrorFinishesWithoutErrorWhenNotValidated() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/status/404"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 1)
        #expect(fetch.output.success?.statusCode == 404)
    }

    @Test func nonRetryableClientErrorFailsWithStatusAndBodyWhenValidated() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/status/404")).validate()
        }
        await run(fetch)
        let error = try #require(fetch.error as? HTTPStatusError)
        #expect(error.statusCode == 404)
        #expect(error.bodyText == "status 404")
        #expect(fetch.count == 1)
    }

    @Test func validatedServerErrorIsRetriedThenSucceeds() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=500,200"))
                .validate()
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
    }

    @Test func retryAfterSetsTheWaitBeforeTheNextAttempt() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let clock = ManualClock()
        let fetch = NetworkProcedure(
            resilience: quickResilience(backoff: .constant(100)), monitor: connectedMonitor(), clock: clock
        ) {
            NetworkDataProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=429,200&retry_after=7"))
        }
        ProcedureQueue().add(procedure: fetch)
        #expect(await clock.waitForScheduledActions(count: 1, timeout: hangTimeout))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(7))
        clock.advance(by: 7.0)
        await finished([fetch])
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
    }

    @Test func retryAfterLongerThanTheMaximumIsCut() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let clock = ManualClock()
        var resilience = quickResilience()
        resilience.maximumRetryAfter = 2
        let fetch = NetworkProcedure(resilience: resilience, monitor: connectedMonitor(), clock: clock) {
            NetworkDataProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=503,200&retry_after=3600"))
        }
        ProcedureQueue().add(procedure: fetch)
        #expect(await clock.waitForScheduledActions(count: 1, timeout: hangTimeout))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(2))
        clock.advance(by: 2.0)
        await finished([fetch])
        #expect(fetch.errors.isEmpty)
    }

    @Test func serverErrorOnAPostIsNotRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkUploadProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=500,200", method: "POST"),
                data: Data("x".utf8))
        }
        await run(fetch)
        #expect(fetch.count == 1)
        #expect(fetch.error as? ProcedureKitNetworkResiliencyError == .receivedErrorStatusCode(.internalServerError))
    }

    @Test func tooManyRequestsOnAPostIsRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkUploadProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=429,200", method: "POST"),
                data: Data("x".utf8))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
    }

    @Test func connectionFailureOfAGetIsRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let session = ManagedNetworkSession()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: session, request: server.request("/sequence/\(key)?codes=0,200"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
    }

    @Test func connectionRefusedIsRetriedUntilAttemptsRunOut() async {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 3), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: request)
        }
        await run(fetch)
        #expect(fetch.count == 3)
        #expect(urlErrorCode(fetch.error) == .cannotConnectToHost)
    }

    @Test(arguments: [false, true])
    func connectionFailureOfAPostIsRetriedOnlyWhenOptedIn(optedIn: Bool) async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let session = ManagedNetworkSession()
        let fetch = NetworkProcedure(
            resilience: quickResilience(retriesNonIdempotent: optedIn), monitor: connectedMonitor()
        ) {
            NetworkUploadProcedure(
                session: session, request: server.request("/sequence/\(key)?codes=0,200", method: "POST"),
                data: Data("x".utf8))
        }
        await run(fetch)
        #expect(fetch.count == (optedIn ? 2 : 1))
        #expect(fetch.errors.isEmpty == optedIn)
        #expect(try await requestCount(server, key: key) == (optedIn ? 2 : 1))
    }

    @Test func perAttemptTimeoutCancelsEachAttemptAndIsRetried() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkProcedure(
            resilience: quickResilience(attempts: 2, timeout: 0.2), monitor: connectedMonitor()
        ) {
            NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=3000"))
        }
        await run(fetch)
        #expect(fetch.count == 2)
        let error = try #require(fetch.error)
        #expect(ProcedureKitNetworkError(error).isTimeoutError)
    }

    @Test func cancelDuringTheWaitBetweenAttemptsMakesNoFurtherRequest() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let clock = ManualClock()
        let fetch = NetworkProcedure(
            resilience: quickResilience(backoff: .constant(100)), monitor: connectedMonitor(), clock: clock
        ) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=500,200"))
        }
        ProcedureQueue().add(procedure: fetch)
        #expect(await clock.waitForScheduledActions(count: 1, timeout: hangTimeout))
        fetch.cancel()
        await finished([fetch])
        #expect(fetch.isCancelled)
        #expect(try await requestCount(server, key: key) == 1)
    }

    @Test func cancelDuringAnAttemptCancelsItsRequest() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=5000"))
        }
        ProcedureQueue().add(procedure: fetch)
        await eventually("the attempt to start") { fetch.current?.isExecuting == true }
        fetch.cancel()
        await finished([fetch])
        #expect(fetch.isCancelled)
        #expect(fetch.count == 1)
        #expect(fetch.current?.isCancelled == true)
    }

    @Test func finishedNetworkProcedureIsReleased() async throws {
        let server = try #require(TestServer.start())
        let leaks = LeakCheck()
        do {
            let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
                NetworkDataProcedure(session: testSession, request: server.request("/status/500"))
            }
            leaks.track(fetch)
            await run(fetch)
        }
        #expect(await leaks.unreleased(timeout: hangTimeout).isEmpty)
    }
}
