import Foundation
import Testing

@testable import PKNetwork

// Checks on errors are evaluated before #expect: on failure Swift Testing reflects the operands, and reflecting
// values such as FoundationNetworking's URLError (whose user info holds the task) is the likely cause of a crash
// seen once in a full run.

struct NetworkValuesTests {

    @Test(arguments: [
        (100, "informational"), (204, "success"), (302, "redirection"), (404, "client"), (503, "server"),
    ])
    func statusCodeClassifications(code: Int, kind: String) throws {
        let status = try #require(HTTPStatusCode(rawValue: code))
        #expect(status.isInformational == (kind == "informational"))
        #expect(status.isSuccess == (kind == "success"))
        #expect(status.isRedirection == (kind == "redirection"))
        let check1 = status.isClientError == (kind == "client")
        #expect(check1)
        let check2 = status.isServerError == (kind == "server")
        #expect(check2)
        #expect(!status.localizedReason.isEmpty)
    }

    @Test func unknownStatusCodeHasNoName() {
        #expect(HTTPStatusCode(rawValue: 299) == nil)
        #expect(HTTPStatusCode.notFound.description == "404 Not Found")
    }

    @Test(arguments: [
        (URLError.Code.networkConnectionLost, true, false), (.cannotConnectToHost, true, false),
        (.badServerResponse, true, false), (.timedOut, false, true), (.cancelled, false, false),
        (.badURL, false, false), (.unknown, true, false),
    ])
    func networkErrorClassification(code: URLError.Code, transient: Bool, timeout: Bool) {
        let error = ProcedureKitNetworkError(URLError(code))
        let check3 = error.isTransientError == transient
        #expect(check3)
        let check4 = error.isTimeoutError == timeout
        #expect(check4)
        let check5 = error.errorCode == code.rawValue
        #expect(check5)
    }

    @Test func timeoutObserverErrorIsATimeout() {
        let check6 = ProcedureKitNetworkError(ProcedureKitError.timedOut(with: .by(1))).isTimeoutError
        #expect(check6)
    }

    @Test func waitForReachabilityCodesAreApples() {
        let check7 = ProcedureKitNetworkError(URLError(.notConnectedToInternet)).waitForReachabilityChangeBeforeRetrying
        #expect(check7)
        let check8 = !ProcedureKitNetworkError(URLError(.cannotConnectToHost)).waitForReachabilityChangeBeforeRetrying
        #expect(check8)
    }

    @Test func wrappingTwiceKeepsTheUnderlyingError() {
        let error = ProcedureKitNetworkError(ProcedureKitNetworkError(URLError(.timedOut)))
        let check9 = error.underlyingError is URLError
        #expect(check9)
    }

    @Test func retryAfterReadsSecondsAndHTTPDates() {
        let now = Date(timeIntervalSince1970: 1_700_000_000)
        #expect(RetryAfter.interval(parsing: "120", now: now) == 120)
        #expect(RetryAfter.interval(parsing: " 0 ", now: now) == 0)
        #expect(RetryAfter.interval(parsing: "-5", now: now) == nil)
        #expect(RetryAfter.interval(parsing: "soon", now: now) == nil)
        // 1_700_000_000 is Tue, 14 Nov 2023 22:13:20 GMT.
        #expect(RetryAfter.interval(parsing: "Tue, 14 Nov 2023 22:13:50 GMT", now: now) == 30)
        #expect(RetryAfter.interval(parsing: "Tue, 14 Nov 2023 22:00:00 GMT", now: now) == 0)
    }

    @Test func idempotentMethods() {
        var request = URLRequest(url: URL(string: "http://127.0.0.1/")!)
        #expect(request.isIdempotent)
        for method in ["HEAD", "PUT", "DELETE", "options"] {
            request.httpMethod = method
            #expect(request.isIdempotent, "\(method)")
        }
        for method in ["POST", "PATCH"] {
            request.httpMethod = method
            #expect(!request.isIdempotent, "\(method)")
        }
    }

    @Test func defaultResilienceIsProcedureKits() {
        let resilience = DefaultNetworkResilience()
        #expect(resilience.maximumNumberOfAttempts == 3)
        #expect(resilience.requestTimeout == 8)
        #expect(resilience.backoffStrategy == .incrementing(initial: 2, increment: 2))
        #expect(resilience.shouldRetry(forResponseWithHTTPStatusCode: .requestTimeout))
        #expect(resilience.shouldRetry(forResponseWithHTTPStatusCode: .tooManyRequests))
        #expect(resilience.shouldRetry(forResponseWithHTTPStatusCode: .badGateway))
        #expect(!resilience.shouldRetry(forResponseWithHTTPStatusCode: .notFound))
        #expect(!resilience.retriesNonIdempotentRequests)
    }
}
