import Foundation
import PKNetwork
import PKTesting
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Issue 26's first newcomer program, written the short way: fetch 20 URLs, at most 4 at a time, each through a
/// `NetworkProcedure` that retries and limits every attempt with a timeout, then say which succeeded and why the
/// others failed. It runs against the tests' HTTP server.
///
/// The per-attempt timeouts run on a `ManualClock`, so that a slow machine never times out a request that answers:
/// the test moves the clock on only once every URL that answers has finished, and then once for each attempt at the
/// URLs that never answer.
@Suite(.timeLimit(.minutes(2)))
struct NewcomerFetchTests {

    /// What a URL does on the test server.
    enum Route: Equatable {
        /// 200 at once.
        case ok
        /// 503, then 200: retried once.
        case flaky
        /// 500 every time: retried until the attempts run out.
        case broken
        /// 404: not retried; fails validation.
        case missing
        /// Answers nothing until long after the test: every attempt times out.
        case hung

        func path(key: String) -> String {
            switch self {
            case .ok: "/text"
            case .flaky: "/sequence/\(key)?codes=503,200"
            case .broken: "/sequence/\(key)?codes=500"
            case .missing: "/status/404"
            case .hung: "/hold/\(key)?ms=600000"
            }
        }
    }

    static let routes: [Route] = [
        .ok, .hung, .flaky, .ok, .broken, .ok, .hung, .missing, .ok, .flaky,
        .ok, .ok, .broken, .ok, .flaky, .ok, .ok, .ok, .ok, .ok,
    ]

    static let attempts = 3

    @Test func boundedFetchOfTwentyURLsWithRetriesAndTimeouts() async throws {
        let server = try #require(TestServer.start())
        let run = uniqueKey()
        let clock = ManualClock()
        let tracker = ConcurrencyTracker()
        let leaks = LeakCheck()
        let (attemptsStarted, attemptStarted) = AsyncStream<Void>.makeStream()
        let resilience = DefaultNetworkResilience(
            maximumNumberOfAttempts: Self.attempts, backoffStrategy: .immediate, requestTimeout: 5)

        do {
            let urls = Self.routes.indices.map { server.url(Self.routes[$0].path(key: "\(run)-\($0)")) }
            let fetches = urls.map { url in
                // The fake monitor says the network is up: after a timeout, a retry asks it before trying again.
                NetworkProcedure(resilience: resilience, monitor: connectedMonitor(), clock: clock) {
                    let attempt = NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url))
                    // Its timeout's timer is on the clock once execute() has returned.
                    attempt.addDidExecuteBlockObserver { _ in attemptStarted.yield() }
                    leaks.track(attempt)
                    return attempt.validate()
                }
            }
            for fetch in fetches {
                leaks.track(fetch)
                fetch.addWillExecuteBlockObserver { _, _ in tracker.enter() }
                fetch.addWillFinishBlockObserver { _, _, _ in tracker.leave() }
            }

            let queue = ProcedureQueue()
            queue.maxConcurrentOperationCount = 4
            async let finished = queue.results(of: fetches)
            for (fetch, route) in zip(fetches, Self.routes) where route != .hung { await fetch.waitUntilFinished() }
            let timeouts = Task {
                for await _ in attemptsStarted { clock.advance(by: .seconds(5)) }
            }
            let results = await finished
            attemptStarted.finish()
            await timeouts.value

            #expect(tracker.entered == 20)
            #expect(tracker.maxConcurrent <= 4)
            for (index, route) in Self.routes.enumerated() {
                let fetch = fetches[index]
                let outcome = "URL \(index) (\(route))"
                switch (route, results[index]) {
                case (.ok, .success(let response)), (.flaky, .success(let response)):
                    #expect(response.statusCode == 200, "\(outcome)")
                    #expect(fetch.count == (route == .ok ? 1 : 2), "\(outcome)")
                    #expect(fetch.attemptErrors.count == fetch.count - 1, "\(outcome)")
                case (.broken, .failure(let error)), (.missing, .failure(let error)):
                    let status = (error as? HTTPStatusError)?.statusCode
                    let expected = route == .broken ? 500 : 404
                    let isTimeout = error.isTimeout
                    #expect(status == expected, "\(outcome)")
                    #expect(!isTimeout, "\(outcome)")
                    #expect(fetch.count == (route == .broken ? Self.attempts : 1), "\(outcome)")
                case (.hung, .failure(let error)):
                    let isTimeout = error.isTimeout
                    let everyAttemptTimedOut = fetch.attemptErrors.allSatisfy(\.isTimeout)
                    #expect(isTimeout, "\(outcome)")
                    #expect(fetch.count == Self.attempts, "\(outcome)")
                    #expect(fetch.attemptErrors.count == Self.attempts, "\(outcome)")
                    #expect(everyAttemptTimedOut, "\(outcome)")
                default:
                    let succeeded = (try? results[index].get()) != nil
                    Issue.record("\(outcome) \(succeeded ? "succeeded" : "failed") unexpectedly")
                }
            }
            // The retries were real requests: the server saw each of them.
            for (index, route) in Self.routes.enumerated() where route == .flaky || route == .broken {
                let expected = route == .flaky ? 2 : Self.attempts
                #expect(try await requestCount(server, key: "\(run)-\(index)") == expected)
            }
        }
        await PKExpectReleased(leaks, timeout: hangTimeout)
    }
}
