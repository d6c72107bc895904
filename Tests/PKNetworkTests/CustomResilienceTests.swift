import Foundation
import PKNetwork
import PKTesting
import Testing

// The resilience of the Networking guide's "Writing your own resilience", exactly as written there.

/// Retries a 404 too, for a resource published shortly after it is announced: one retry, after half a second.
struct EventuallyPublishedResilience: NetworkResilience {
    var maximumNumberOfAttempts: Int { 2 }  // the first attempt included
    var backoffStrategy: WaitStrategy { .constant(0.5) }  // the wait before each retry
    var requestTimeout: TimeInterval? { 5 }  // each attempt's own limit

    func shouldRetry(forResponseWithHTTPStatusCode statusCode: HTTPStatusCode) -> Bool {
        statusCode == .notFound || DefaultNetworkResilience().shouldRetry(forResponseWithHTTPStatusCode: statusCode)
    }
}

/// The guide's custom resilience, run against the test server's `/sequence` route, which answers each request for a
/// key with the next status of a list.
struct CustomResilienceTests {

    @Test func theGuidesResilienceRetriesA404AndGetsTheReportOnTheSecondAttempt() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let session = testSession
        let reportURL = server.url("/sequence/\(key)?codes=404,200")
        let queue = ProcedureQueue()

        // The guide's example, exactly as written there.
        let fetch = NetworkProcedure(resilience: EventuallyPublishedResilience()) {
            NetworkDataProcedure(session: session, request: URLRequest(url: reportURL)).validate()
        }
        let report = try await queue.run(fetch)  // HTTPPayloadResponse<Data>, from the attempt that got a 2xx
        // End of the guide's example.

        #expect(fetch.count == 2)
        #expect(try await requestCount(server, key: key) == 2)
        #expect(report.statusCode == 200)
        #expect(report.payload.map { String(decoding: $0, as: UTF8.self) } == "attempt 2 status 200")
        let finishedCleanly = fetch.errors.isEmpty
        #expect(finishedCleanly)
    }

    @Test func aReportStillMissingAtTheSecondAttemptFailsWithItsNotFoundStatus() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: EventuallyPublishedResilience()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=404"))
                .validate()
        }
        await run(fetch)
        #expect(fetch.count == 2)
        #expect(try await requestCount(server, key: key) == 2)
        // Read before #expect: reflecting network errors in a failure message is avoided (see NetworkProcedureTests).
        let status = (fetch.error as? HTTPStatusError)?.statusCode
        let body = (fetch.error as? HTTPStatusError)?.bodyText
        #expect(status == 404)
        #expect(body == "attempt 2 status 404")
    }

    @Test func theStatusesTheDefaultRetriesAreStillRetried() async throws {
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: EventuallyPublishedResilience()) {
            NetworkDataProcedure(session: testSession, request: server.request("/sequence/\(key)?codes=500,200"))
                .validate()
        }
        await run(fetch)
        #expect(fetch.count == 2)
        #expect(fetch.output.success?.statusCode == 200)
    }

    @Test func aNonIdempotentRequestAnswered404IsNotRepeatedButFails() async throws {
        // The guide's caveat: the resilience makes a 404 a failure even without validation, and a POST is not
        // repeated after a status other than 408, 429 and 503.
        let server = try #require(TestServer.start())
        let key = uniqueKey()
        let fetch = NetworkProcedure(resilience: EventuallyPublishedResilience()) {
            NetworkDataProcedure(
                session: testSession, request: server.request("/sequence/\(key)?codes=404,200", method: "POST"))
        }
        await run(fetch)
        #expect(fetch.count == 1)
        #expect(try await requestCount(server, key: key) == 1)
        let failedWithTheStatus =
            fetch.error as? ProcedureKitNetworkResiliencyError == .receivedErrorStatusCode(.notFound)
        #expect(failedWithTheStatus)
    }

    @Test func theRequirementsWithDefaultsKeepThem() {
        let resilience = EventuallyPublishedResilience()
        #expect(!resilience.retriesNonIdempotentRequests)
        #expect(resilience.maximumRetryAfter == 60)
        #expect(resilience.shouldRetry(forResponseWithHTTPStatusCode: .notFound))
        #expect(resilience.shouldRetry(forResponseWithHTTPStatusCode: .tooManyRequests))
        #expect(!resilience.shouldRetry(forResponseWithHTTPStatusCode: .forbidden))
    }
}
