import Foundation
import PKNetwork
import PKTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// ProcedureKit's spellings of `HTTPStatusCode`, reached through a protocol so that the test compiles without
/// deprecation warnings (a witness may be deprecated; a direct use warns).
protocol ProcedureKitStatusSpellings {
    static var movedPermenantly: Self { get }
    static var unprocesssableEntity: Self { get }
    static var urpgradeRequired: Self { get }
    static var requestHeadersFieldTooLarge: Self { get }
    static var checkpoint: Self { get }
}

extension HTTPStatusCode: ProcedureKitStatusSpellings {}

/// ProcedureKit's spellings, read generically.
func procedureKitSpellings<Code: ProcedureKitStatusSpellings>(_: Code.Type) -> [Code] {
    [.movedPermenantly, .unprocesssableEntity, .urpgradeRequired, .requestHeadersFieldTooLarge, .checkpoint]
}

/// A recovery that also retries a 404 (ProcedureKit's `shouldRetry(givenNetworkResponse:)` hook).
final class NotFoundRetryingRecovery: NetworkRecovery<NetworkDataProcedure>, @unchecked Sendable {
    // @unchecked Sendable: no stored state besides NetworkRecovery's immutable properties.
    override func shouldRetry(givenNetworkResponse networkResponse: ProcedureKitNetworkResponse) -> Bool {
        networkResponse.httpStatusCode == .notFound || super.shouldRetry(givenNetworkResponse: networkResponse)
    }
}

/// A recovery overriding ProcedureKit's two-argument `recover(withInfo:payload:)`: after a 401 it adds a token
/// refresh with `info.addOperations` and injects the token into the next attempt.
final class AddOperationsRecovery: NetworkRecovery<NetworkDataProcedure>, @unchecked Sendable {
    // @unchecked Sendable: `tokenURL` is immutable; `refreshes` is a Box guarded by its PKMutex.
    let tokenRequest: URLRequest
    let refreshes = Box(0)

    init(tokenRequest: URLRequest) {
        self.tokenRequest = tokenRequest
        super.init(resilience: quickResilience(), monitor: connectedMonitor())
    }

    override func recover(
        withInfo info: RetryFailureInfo<NetworkDataProcedure>, payload: RepeatProcedurePayload<NetworkDataProcedure>
    ) -> RepeatProcedurePayload<NetworkDataProcedure>? {
        guard (info.error as? HTTPStatusError)?.code == .unauthorized, info.count == 1,
            let request = payload.operation.input.value
        else { return super.recover(withInfo: info, payload: payload) }
        let refresh = NetworkDataProcedure(session: testSession, request: tokenRequest)
        payload.operation.injectResult(from: refresh) { (response: HTTPPayloadResponse<Data>) in
            var authorized = request
            authorized.setValue(
                "Bearer \(String(decoding: response.payload ?? Data(), as: UTF8.self))",
                forHTTPHeaderField: "Authorization")
            return authorized
        }
        refreshes.update { $0 += 1 }
        info.addOperations(refresh)
        return payload.set(delay: nil)
    }
}

/// ProcedureKitNetwork's public shapes, against the loopback server: what ported code and tests rely on.
struct ProcedureKitShapesTests {

    // MARK: - Sessions

    @Test func aURLSessionIsAcceptedDirectlyThroughAnAdapter() async throws {
        let server = try #require(TestServer.start())
        let session = URLSession(configuration: .ephemeral)
        defer { session.finishTasksAndInvalidate() }
        let fetch = NetworkDataProcedure(session: session, request: server.request("/status/200"))
        let upload = NetworkUploadProcedure(
            session: session, request: server.request("/echo", method: "POST"), data: Data("hi".utf8))
        let directory = makeScratchDirectory()
        defer { try? FileManager.default.removeItem(at: directory) }
        let download = NetworkDownloadProcedure(
            session: session, request: server.request("/bytes?size=64"), downloadDirectory: directory)
        await run(fetch, upload, download)

        #expect(fetch.session is URLSessionAdapter)
        #expect(fetch.output.success?.payload == Data("status 200".utf8))
        #expect(upload.output.success?.payload == Data("hi".utf8))
        let file = try #require(download.output.success?.payload)
        #expect(fileHoldsPattern(file, size: 64))
    }

    @Test func theCompletionIsPublicAndSeesTheResultOnce() async throws {
        let server = try #require(TestServer.start())
        let calls = Box(0)
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/status/201")) { result in
            if case .success(let response) = result, response.statusCode == 201 { calls.update { $0 += 1 } }
        }
        let completion: NetworkDataProcedure.CompletionBlock = fetch.completion
        await run(fetch)
        #expect(calls.value == 1)
        let result: NetworkDataProcedure.NetworkResult? = fetch.output.value
        completion(try #require(result))  // the handler is the one given: calling it again counts again
        #expect(calls.value == 2)
    }

    // MARK: - Values

    @Test func procedureKitsSpellingsAreTheCorrectedCases() {
        #expect(
            procedureKitSpellings(HTTPStatusCode.self)
                == [
                    .movedPermanently, .unprocessableEntity, .upgradeRequired, .requestHeaderFieldsTooLarge,
                    .earlyHints,
                ])
        #expect(procedureKitSpellings(HTTPStatusCode.self).map(\.rawValue) == [301, 422, 426, 431, 103])
    }

    @Test(arguments: [
        (440, HTTPStatusCode.iisLoginTimeout), (444, .nginxNoResponse), (449, .iisRetryWith),
        (450, .blockedByWindowsParentalControls), (495, .nginxSSLCertificateError), (497, .nginxHTTPToHTTPS),
        (498, .tokenExpired), (499, .nginxClientClosedRequest), (509, .bandwidthLimitExceeded), (530, .siteIsFrozen),
    ])
    func procedureKitsNonStandardCodesAreNamed(code: Int, named: HTTPStatusCode) {
        #expect(HTTPStatusCode(rawValue: code) == named)
        let response = HTTPURLResponse(
            url: URL(string: "http://127.0.0.1/")!, statusCode: code, httpVersion: nil, headerFields: nil)
        #expect(response?.code == named)
        #expect(named.isClientError == (400..<500).contains(code))
        #expect(named.isServerError == (500..<600).contains(code))
        #expect(named.description.hasPrefix("\(code) "))
    }

    @Test func payloadResponsesAreEqualWhenPayloadAndResponseAre() {
        func response(_ status: Int) -> HTTPURLResponse {
            HTTPURLResponse(
                url: URL(string: "http://127.0.0.1/")!, statusCode: status, httpVersion: nil, headerFields: nil)!
        }
        let ok = response(200)
        let a = HTTPPayloadResponse(payload: Data("a".utf8), response: ok)
        #expect(a == HTTPPayloadResponse(payload: Data("a".utf8), response: ok))
        #expect(a != HTTPPayloadResponse(payload: Data("b".utf8), response: ok))
        #expect(a != HTTPPayloadResponse(payload: nil, response: ok))
        // A different status is a different response (FoundationNetworking's isEqual alone would say equal).
        #expect(a != HTTPPayloadResponse(payload: Data("a".utf8), response: response(404)))
    }

    @Test func aNetworkResponseDefaultsToNothingAndClassifiesItsError() {
        let empty = ProcedureKitNetworkResponse()
        #expect(empty.response == nil && empty.error == nil && empty.httpStatusCode == nil)
        let failed = ProcedureKitNetworkResponse(error: URLError(.networkConnectionLost))
        let transient = failed.error?.isTransientError ?? false
        #expect(transient)
        let classified = ProcedureKitNetworkResponse(error: ProcedureKitNetworkError(URLError(.timedOut)))
        let timeout = classified.error?.isTimeoutError ?? false
        #expect(timeout)
        let wrappedOnce = !(classified.error?.underlyingError is ProcedureKitNetworkError)
        #expect(wrappedOnce)
    }

    // MARK: - NetworkProcedure and NetworkRecovery

    @Test func aNetworkProcedureTakesItsAttemptsFromAnIterator() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let attempts = (0..<3).map { _ in
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=500,200"))
        }
        let fetch = NetworkProcedure(
            resilience: quickResilience(), monitor: connectedMonitor(), iterator: attempts.makeIterator())
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.statusCode == 200)
    }

    @Test func overridingShouldRetryRetriesANotFound() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let recovery = NotFoundRetryingRecovery(resilience: quickResilience(), monitor: connectedMonitor())
        let fetch = NetworkProcedure(recovery: recovery) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=404,200"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.statusCode == 200)
        #expect(try await requestCount(server, key: key) == 2)
    }

    @Test func withoutTheOverrideANotFoundIsNotRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: connectedMonitor()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=404,200"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 1)
        #expect(fetch.output.success?.statusCode == 404)
    }

    @Test func theTwoArgumentRecoverAddsWorkBeforeTheNextAttempt() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let recovery = AddOperationsRecovery(tokenRequest: server.request("/token?value=s3"))
        let fetch = NetworkProcedure(recovery: recovery) {
            NetworkDataProcedure(session: testSession, request: server.request("/auth/\(key)?token=s3")).validate()
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.payload == Data("authorized".utf8))
        #expect(recovery.refreshes.value == 1)
    }

    // MARK: - Reachability

    static let flagReadings: [(NetworkReachabilityFlags, NetworkStatus)] = [
        (NetworkReachabilityFlags(), NetworkStatus.notReachable),
        (.reachable, .reachable(.ethernetOrWiFi)),
        ([.reachable, .isWWAN], .reachable(.wwan)),
        (.connectionRequired, .notReachable),
        ([.reachable, .connectionRequired], .notReachable),
        ([.reachable, .connectionRequired, .connectionOnTraffic], .reachable(.ethernetOrWiFi)),
        ([.reachable, .connectionRequired, .connectionOnDemand, .interventionRequired], .notReachable),
    ]

    @Test(arguments: flagReadings)
    func flagsReadAsSystemConfigurationDocumentsThem(flags: NetworkReachabilityFlags, status: NetworkStatus) {
        #expect(flags.status == status)
    }

    @Test func aWaitThroughAManagerLastsUntilTheFlagsSayReachableAndThenStopsTheNotifier() async {
        let network = TestableNetworkReachability()
        network.flags = .connectionRequired
        let manager = Reachability.Manager(network)
        let wait = NetworkReachabilityWaitProcedure(reachability: manager, connectivity: .any)
        ProcedureQueue().add(procedure: wait)
        await eventually("the notifier starts") { network.didStartNotifier }
        #expect(!wait.isFinished)
        network.flags = .reachable
        await finished([wait])
        #expect(wait.errors.isEmpty)
        await eventually("the notifier stops") { network.didStopNotifier }
        #expect(!manager.monitor.isMonitoring)
    }

    @Test func aWifiWaitIsNotSatisfiedByACellularConnection() async {
        let network = TestableNetworkReachability()
        network.flags = .connectionRequired
        let manager = Reachability.Manager(network)
        let wait = NetworkReachabilityWaitProcedure(reachability: manager, via: .wifi)
        ProcedureQueue().add(procedure: wait)
        await eventually("the notifier starts") { network.didStartNotifier }
        network.flags = [.reachable, .isWWAN]
        // The monitor decides synchronously in the report: a WWAN connection leaves the Wi-Fi wait registered.
        #expect(manager.monitor.isMonitoring)
        #expect(!wait.isFinished)
        network.flags = .reachable
        await finished([wait])
        #expect(wait.errors.isEmpty)
    }

    @Test func aReachableNetworkDoesNotStartTheNotifier() async throws {
        let server = try #require(TestServer.start())
        let network = TestableNetworkReachability()
        let manager = Reachability.Manager(network)
        let fetch = NetworkProcedure(resilience: quickResilience(), monitor: manager.monitor) {
            NetworkDataProcedure(session: testSession, request: server.request("/status/200"))
        }
        await run(fetch)
        #expect(fetch.errors.isEmpty)
        #expect(!network.didStartNotifier)
    }
}
