import Foundation
import PKNetwork
import PKTesting
import Testing

// Checks on errors are evaluated before #expect: on failure Swift Testing reflects the operands, and reflecting
// values such as FoundationNetworking's URLError (whose user info holds the task) is the likely cause of a crash
// seen once in a full run.

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
        let check1 = fetch.errors.isEmpty
        #expect(check1)
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
        let check2 = fetch.errors.isEmpty
        #expect(check2)
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
        let check3 = fetch.error as? ProcedureKitNetworkResiliencyError == .receivedErrorStatusCode(.serviceUnavailable)
        #expect(check3)
        #expect(try await requestCount(server, key: key) == 3)
    }

    @Test func nonRetryableClientErrorFinishesWithoutErrorWhenNotValidated() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/status/404"))
        }
        await run(fetch)
        let check4 = fetch.errors.isEmpty
        #expect(check4)
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
        let check5 = error.statusCode == 404
        #expect(check5)
        let check6 = error.bodyText == "status 404"
        #expect(check6)
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
        let check7 = fetch.errors.isEmpty
        #expect(check7)
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
        let check8 = fetch.errors.isEmpty
        #expect(check8)
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
        let check9 = fetch.errors.isEmpty
        #expect(check9)
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
        let check10 =
            fetch.error as? ProcedureKitNetworkResiliencyError == .receivedErrorStatusCode(.internalServerError)
        #expect(check10)
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
        let check11 = fetch.errors.isEmpty
        #expect(check11)
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
        let check12 = fetch.errors.isEmpty
        #expect(check12)
        #expect(fetch.count == 2)
    }

    @Test func connectionRefusedIsRetriedUntilAttemptsRunOut() async {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        let fetch = NetworkProcedure(resilience: quickResilience(attempts: 3), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: request)
        }
        await run(fetch)
        #expect(fetch.count == 3)
        let check13 = urlErrorCode(fetch.error) == .cannotConnectToHost
        #expect(check13)
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
        let check14 = fetch.errors.isEmpty == optedIn
        #expect(check14)
        #expect(try await requestCount(server, key: key) == (optedIn ? 2 : 1))
    }

    @Test func perAttemptTimeoutCancelsEachAttemptAndIsRetried() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkProcedure(
            resilience: quickResilience(attempts: 2, timeout: 0.2), monitor: connectedMonitor()
        ) {
            NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=90000"))
        }
        await run(fetch)
        #expect(fetch.count == 2)
        let error = try #require(fetch.error)
        let check15 = ProcedureKitNetworkError(error).isTimeoutError
        #expect(check15)
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
            NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=90000"))
        }
        ProcedureQueue().add(procedure: fetch)
        await eventually("the attempt to start", timeout: startTimeout) { fetch.current?.isExecuting == true }
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
