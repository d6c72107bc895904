import Foundation
import PKNetwork
import PKObservers
import PKTesting
import Testing

// Checks on errors are evaluated before #expect: on failure Swift Testing reflects the operands, and reflecting
// values such as FoundationNetworking's URLError (whose user info holds the task) is the likely cause of a crash
// seen once in a full run.

struct NetworkDataProcedureTests {

    @Test func getOutputsBodyAndHTTPResponse() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/text"))
        await run(fetch)
        let response = try #require(fetch.output.success)
        #expect(response.statusCode == 200)
        #expect(response.payload == Data("hello".utf8))
        #expect(fetch.urlResponse?.statusCode == 200)
        let check1 = fetch.errors.isEmpty
        #expect(check1)
    }

    @Test func completionHandlerIsCalledOnceWithTheResultBeforeFinishing() async throws {
        let server = try #require(TestServer.start())
        let calls = Box<[Int]>([])
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/status/201")) { result in
            calls.update { $0.append((try? result.get().statusCode) ?? -1) }
        }
        await run(fetch)
        #expect(calls.value == [201])
    }

    @Test func errorStatusIsASuccessWithoutValidation() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/status/404"))
        await run(fetch)
        let check2 = fetch.errors.isEmpty
        #expect(check2)
        #expect(fetch.output.success?.statusCode == 404)
    }

    @Test(arguments: [401, 404, 500])
    func validationFailsWithTypedErrorCarryingStatusAndBody(status: Int) async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/status/\(status)"))
            .validate()
        await run(fetch)
        let error = try #require(fetch.error as? HTTPStatusError)
        let check3 = error.statusCode == status
        #expect(check3)
        let check4 = error.bodyText == "status \(status)"
        #expect(check4)
        let check5 = fetch.output.error is HTTPStatusError
        #expect(check5)
    }

    @Test func validationAcceptsTheCodesItIsGiven() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/status/404"))
            .validate(statusCodes: [200, 404])
        await run(fetch)
        let check6 = fetch.errors.isEmpty
        #expect(check6)
    }

    @Test func missingInputFailsWithRequirementNotSatisfied() async {
        let fetch = NetworkDataProcedure(session: testSession)
        await run(fetch)
        let check7 = (fetch.error as? ProcedureKitError)?.context == .requirementNotSatisfied
        #expect(check7)
    }

    @Test func chunkedBodyIsAssembled() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/chunked?parts=4"))
        await run(fetch)
        let body = try #require(fetch.output.success?.payload)
        #expect(String(decoding: body, as: UTF8.self) == "part 0\npart 1\npart 2\npart 3\n")
    }

    @Test func redirectIsFollowed() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/redirect?to=/text"))
        await run(fetch)
        #expect(fetch.output.success?.statusCode == 200)
        #expect(fetch.output.success?.payload == Data("hello".utf8))
    }

    @Test func connectionRefusedFailsWithCannotConnectToHost() async {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/text")!)
        let fetch = NetworkDataProcedure(session: testSession, request: request)
        await run(fetch)
        let check8 = urlErrorCode(fetch.error) == .cannotConnectToHost
        #expect(check8)
        let check9 = ProcedureKitNetworkError(fetch.error ?? CancellationError()).isTransientError
        #expect(check9)
    }

    @Test func dnsFailureForAnInvalidHostIsATypedError() async {
        let request = URLRequest(url: URL(string: "http://pknetwork-test.invalid/")!, timeoutInterval: 10)
        let fetch = NetworkDataProcedure(session: testSession, request: request)
        await run(fetch)
        let check10 = fetch.error is URLError
        #expect(check10)
        let check11 = fetch.output.error is URLError
        #expect(check11)
    }

    @Test func connectionClosedWithoutReplyFailsWithBadServerResponse() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/drop"))
        await run(fetch)
        let check12 = urlErrorCode(fetch.error) == .badServerResponse
        #expect(check12)
        let check13 = ProcedureKitNetworkError(fetch.error ?? CancellationError()).isConnectionLevelError
        #expect(check13)
    }

    @Test func connectionResetFailsWithNetworkConnectionLost() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/reset"))
        await run(fetch)
        let check14 = urlErrorCode(fetch.error) == .networkConnectionLost
        #expect(check14)
        let check15 = ProcedureKitNetworkError(fetch.error ?? CancellationError()).isTransientError
        #expect(check15)
    }

    @Test func serverClosingMidBodyFailsWithATransientError() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/short"))
        await run(fetch)
        let check16 = fetch.error is URLError
        #expect(check16)
        let check17 = ProcedureKitNetworkError(fetch.error ?? CancellationError()).isTransientError
        #expect(check17)
    }

    @Test func unsupportedSchemeFailsWithATypedError() async {
        let request = URLRequest(url: URL(string: "pknetwork-nope://example/path")!)
        let fetch = NetworkDataProcedure(session: testSession, request: request)
        await run(fetch)
        let check18 = fetch.error is URLError
        #expect(check18)
    }

    @Test func nonHTTPResponseFailsWithATypedError() async throws {
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("PKNetworkTests-\(UUID()).txt")
        try Data("local".utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let fetch = NetworkDataProcedure(session: testSession, request: URLRequest(url: file))
        await run(fetch)
        // FoundationNetworking answers file:// with a plain URLResponse (or refuses the scheme): either way a
        // typed error, never a crash.
        let error = try #require(fetch.error)
        let cause = (error as? ProcedureKitError)?.underlyingError as? NetworkResponseError
        let check19 = cause != nil || error is URLError
        #expect(check19)
        if let cause {
            let isUnknown = (error as? ProcedureKitError)?.context == .unknown
            #expect(isUnknown)
            #expect(cause == .notHTTPResponse(url: file))
        }
    }

    @Test func subSecondTimeoutIsRoundedUpInsteadOfFiringAtOnce() async throws {
        let server = try #require(TestServer.start())
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 0.5
        let session = ManagedNetworkSession(configuration: configuration)
        // Unrounded, FoundationNetworking's timer would fire before any reply, however fast; rounded to 1 s, an
        // immediate reply has a whole second, so a loaded machine does not turn this into a timeout.
        let fetch = NetworkDataProcedure(session: session, request: server.request("/text", timeout: 0.5))
        await run(fetch)
        let check20 = fetch.errors.isEmpty
        #expect(check20)
        #expect(fetch.output.success?.statusCode == 200)
    }

    @Test func sessionTimeoutFailsWithTimedOut() async throws {
        let server = try #require(TestServer.start())
        let configuration = URLSessionConfiguration.ephemeral
        configuration.timeoutIntervalForRequest = 1
        let session = ManagedNetworkSession(configuration: configuration)
        let fetch = NetworkDataProcedure(session: session, request: server.request("/slow?ms=90000", timeout: 1))
        await run(fetch)
        #expect(
            urlErrorCode(fetch.error) == .timedOut,
            "\(String(describing: fetch.error)) \(String(describing: fetch.output.success?.statusCode))")
        let check21 = fetch.error.map { ProcedureKitNetworkError($0).isTimeoutError } == true
        #expect(check21)
    }

    @Test func timeoutObserverCancelsTheRequestWithTimedOut() async throws {
        let server = try #require(TestServer.start())
        let completed = Box(false)
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=90000")) { _ in
            completed.update { $0 = true }
        }
        fetch.addObserver(TimeoutObserver(by: 0.2))
        await run(fetch)
        #expect(fetch.isCancelled)
        let check22 = fetch.errors.count == 1
        #expect(check22)
        let check23 = ProcedureKitNetworkError(fetch.error ?? CancellationError()).isTimeoutError
        #expect(check23)
        #expect(!completed.value)
    }

    @Test func cancelBeforeStartFinishesWithoutRequestOrHandler() async throws {
        let server = try #require(TestServer.start())
        let completed = Box(false)
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/text")) { _ in
            completed.update { $0 = true }
        }
        fetch.cancel()
        await run(fetch)
        #expect(fetch.isCancelled)
        let check24 = fetch.errors.isEmpty
        #expect(check24)
        #expect(fetch.output.isPending)
        #expect(!completed.value)
    }

    @Test(arguments: ["/slow?ms=90000", "/drip?bytes=900&interval_ms=100"])
    func cancelWhileRunningCancelsTheTaskAndFinishesCancelledWithoutError(path: String) async throws {
        let server = try #require(TestServer.start())
        let completed = Box(false)
        let fetch = NetworkDataProcedure(session: testSession, request: server.request(path)) { _ in
            completed.update { $0 = true }
        }
        ProcedureQueue().add(procedure: fetch)
        await eventually("the request to start", timeout: startTimeout) { fetch.isExecuting }
        try await Task.sleep(for: .milliseconds(100))
        fetch.cancel()
        await finished([fetch])
        #expect(fetch.isCancelled)
        let check25 = fetch.errors.isEmpty
        #expect(check25)
        #expect(!completed.value)
    }

    @Test func cancelFromADidExecuteObserverFinishesTheProcedure() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/slow?ms=90000"))
        fetch.addDidExecuteBlockObserver { $0.cancel() }
        await run(fetch)
        #expect(fetch.isCancelled)
        let check26 = fetch.errors.isEmpty
        #expect(check26)
    }

    @Test func invalidatedSessionFailsWithTypedErrorInsteadOfCrashing() async throws {
        let server = try #require(TestServer.start())
        let session = ManagedNetworkSession()
        session.invalidateAndCancel()
        let fetch = NetworkDataProcedure(session: session, request: server.request("/text"))
        await run(fetch)
        let check27 = fetch.error as? NetworkSessionError == .invalidated
        #expect(check27)
        #expect(session.isInvalidated)
    }

    @Test func finishedProcedureIsReleased() async throws {
        let server = try #require(TestServer.start())
        let leaks = LeakCheck()
        do {
            let fetch = NetworkDataProcedure(session: testSession, request: server.request("/text"))
            leaks.track(fetch)
            await run(fetch)
        }
        #expect(await leaks.unreleased(timeout: hangTimeout).isEmpty)
    }

    @Test func injectPayloadFromNetworkPassesTheBody() async throws {
        let server = try #require(TestServer.start())
        let fetch = NetworkDataProcedure(session: testSession, request: server.request("/text"))
        let decode = TransformProcedure<Data, String> { String(decoding: $0, as: UTF8.self) }
        decode.injectPayload(fromNetwork: fetch)
        await run(fetch, decode)
        #expect(decode.output.success == "hello")
    }

    @Test func injectPayloadFromAFailedRequestCancelsTheReceiver() async {
        let request = URLRequest(url: URL(string: "http://127.0.0.1:\(closedPort())/")!)
        let fetch = NetworkDataProcedure(session: testSession, request: request)
        let decode = TransformProcedure<Data, String> { String(decoding: $0, as: UTF8.self) }
        decode.injectPayload(fromNetwork: fetch)
        await run(fetch, decode)
        #expect(decode.isCancelled)
        #expect(decode.output.isPending)
    }
}
