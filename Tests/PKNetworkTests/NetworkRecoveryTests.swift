import Foundation
import PKNetwork
import PKTesting
import Testing

/// A recovery that, after the first attempt fails with 401, fetches a token with `refresh` and makes the next attempt
/// send it; every other failure goes to the default policy.
final class TokenRefreshingRecovery: NetworkRecovery<NetworkDataProcedure>, @unchecked Sendable {
    // @unchecked Sendable: `refreshes` is a Box guarded by its PKMutex; `makeRefresh` is immutable and Sendable.

    let makeRefresh: @Sendable () -> NetworkDataProcedure
    /// The refresh procedures made, in order.
    let refreshes = Box<[NetworkDataProcedure]>([])

    init(resilience: any NetworkResilience, refresh: @escaping @Sendable () -> NetworkDataProcedure) {
        makeRefresh = refresh
        super.init(resilience: resilience, monitor: connectedMonitor())
    }

    override func recover(
        withInfo info: RetryFailureInfo<NetworkDataProcedure>, payload: RepeatProcedurePayload<NetworkDataProcedure>,
        for procedure: NetworkProcedure<NetworkDataProcedure>
    ) -> RepeatProcedurePayload<NetworkDataProcedure>? {
        guard (info.error as? HTTPStatusError)?.code == .unauthorized, info.count == 1,
            let request = payload.operation.input.value
        else { return super.recover(withInfo: info, payload: payload, for: procedure) }
        let refresh = makeRefresh()
        refreshes.update { $0.append(refresh) }
        payload.operation.injectResult(from: refresh) { (response: HTTPPayloadResponse<Data>) in
            var authorized = request
            let token = String(decoding: response.payload ?? Data(), as: UTF8.self)
            authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
            return authorized
        }
        procedure.addChild(refresh)
        return payload.set(delay: nil)
    }
}

struct NetworkRecoveryTests {

    /// A token refresh from `/token?value=<token>` on the test session.
    func tokenRefresh(_ server: TestServer, token: String) -> @Sendable () -> NetworkDataProcedure {
        { NetworkDataProcedure(session: testSession, request: server.request("/token?value=\(token)")) }
    }

    @Test func recoveryRefreshesTheTokenBeforeRetryingAnUnauthorizedAttempt() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let recovery = TokenRefreshingRecovery(
            resilience: quickResilience(), refresh: tokenRefresh(server, token: "s3"))
        let fetch = NetworkProcedure(recovery: recovery) {
            NetworkDataProcedure(session: testSession, request: server.request("/auth/\(key)?token=s3")).validate()
        }
        await run(fetch)

        let succeeded = fetch.errors.isEmpty
        #expect(succeeded)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.statusCode == 200)
        #expect(fetch.output.success?.payload == Data("authorized".utf8))
        #expect(recovery.refreshes.value.count == 1)
        #expect(recovery.refreshes.value.first?.output.success?.statusCode == 200)
        #expect(try await requestCount(server, key: key) == 2)
    }

    @Test func refreshGivingAWrongTokenStopsWithTheUnauthorizedStatus() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let recovery = TokenRefreshingRecovery(
            resilience: quickResilience(attempts: 5), refresh: tokenRefresh(server, token: "wrong"))
        let fetch = NetworkProcedure(recovery: recovery) {
            NetworkDataProcedure(session: testSession, request: server.request("/auth/\(key)?token=s3")).validate()
        }
        await run(fetch)

        let status = (fetch.error as? HTTPStatusError)?.statusCode
        #expect(status == 401)
        #expect(fetch.count == 2)
        #expect(recovery.refreshes.value.count == 1)
        #expect(try await requestCount(server, key: key) == 2)
    }

    @Test func overridingRecoveryKeepsTheDefaultPolicyForOtherFailures() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let recovery = TokenRefreshingRecovery(
            resilience: quickResilience(), refresh: tokenRefresh(server, token: "s3"))
        let fetch = NetworkProcedure(recovery: recovery) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=503,200"))
                .validate()
        }
        await run(fetch)

        let succeeded = fetch.errors.isEmpty
        #expect(succeeded)
        #expect(fetch.count == 2)
        #expect(recovery.refreshes.value.isEmpty)
    }

    @Test func defaultRecoveryDoesNotRetryUnauthorized() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(
            recovery: NetworkRecovery(resilience: quickResilience(), monitor: connectedMonitor())
        ) {
            NetworkDataProcedure(session: testSession, request: server.request("/auth/\(key)?token=s3")).validate()
        }
        await run(fetch)

        let status = (fetch.error as? HTTPStatusError)?.statusCode
        #expect(status == 401)
        #expect(fetch.count == 1)
        #expect(try await requestCount(server, key: key) == 1)
    }

    @Test func recoveryInitialiserTakesItsAttemptsFromTheIterator() async throws {
        let server = try #require(TestServer.start())
        let attempts = [
            NetworkDataProcedure(session: testSession, request: server.request("/status/503")),
            NetworkDataProcedure(session: testSession, request: server.request("/text")),
        ]
        let fetch = NetworkProcedure(
            recovery: NetworkRecovery(resilience: quickResilience(attempts: 5), monitor: connectedMonitor()),
            iterator: attempts.makeIterator())
        await run(fetch)

        let succeeded = fetch.errors.isEmpty
        #expect(succeeded)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.payload == Data("hello".utf8))
    }

    @Test func cancellingDuringTheRefreshCancelsItAndMakesNoFurtherAttempt() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let holdKey = uniqueKey("hold")
        let recovery = TokenRefreshingRecovery(resilience: quickResilience()) {
            NetworkDataProcedure(session: testSession, request: server.request("/hold/\(holdKey)", timeout: 120))
        }
        let fetch = NetworkProcedure(recovery: recovery) {
            NetworkDataProcedure(session: testSession, request: server.request("/auth/\(key)?token=s3")).validate()
        }
        ProcedureQueue().add(procedure: fetch)
        try await waitForRequests(server, key: holdKey, 1)
        fetch.cancel()
        await finished([fetch])

        #expect(fetch.isCancelled)
        let refreshCancelled = recovery.refreshes.value.first?.isCancelled ?? false
        #expect(refreshCancelled)
        #expect(fetch.count == 2)
        let nextAttemptCancelled = fetch.current?.isCancelled ?? false
        #expect(nextAttemptCancelled)
        await run(release(server, key: holdKey))
        #expect(try await requestCount(server, key: key) == 1)
    }

    @Test func finishedNetworkProcedureWithACustomRecoveryIsReleased() async throws {
        let server = try #require(TestServer.start())
        let leaks = LeakCheck()
        do {
            let recovery = TokenRefreshingRecovery(
                resilience: quickResilience(), refresh: tokenRefresh(server, token: "s3"))
            let fetch = NetworkProcedure(recovery: recovery) {
                NetworkDataProcedure(session: testSession, request: server.request("/auth/\(uniqueKey())?token=s3"))
                    .validate()
            }
            leaks.track(fetch)
            leaks.track(recovery)
            await run(fetch)
        }
        #expect(await leaks.unreleased(timeout: hangTimeout).isEmpty)
    }
}
