#if Postgres
    import Foundation
    import PKCore

    /// A wait that ran out: something that should have happened did not (a hang, not a slow machine: the limits
    /// are generous).
    struct TimedOut: Error, CustomStringConvertible {
        let what: String
        var description: String { "timed out waiting for \(what)" }
    }

    /// Resumes a continuation once, whichever of the work and its timer comes first.
    private final class FirstResult<T: Sendable>: Sendable {
        private let continuation = PKMutex<CheckedContinuation<T, any Error>?>(nil)

        init(_ continuation: CheckedContinuation<T, any Error>) {
            self.continuation.withLock { $0 = continuation }
        }

        func resume(with result: Result<T, any Error>) {
            continuation.withLock { $0.take() }?.resume(with: result)
        }
    }

    /// Runs `operation` and returns its result, or throws ``TimedOut`` after `timeout` (cancelling it) when it
    /// has not finished: works for waits that ignore cancellation too, so a hang fails the test instead of
    /// stalling the run.
    func withHangTimeout<T: Sendable>(
        _ what: String, timeout: Duration = TestDatabase.hangTimeout,
        _ operation: @escaping @Sendable () async throws -> T
    ) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            let first = FirstResult(continuation)
            let work = Task {
                do { first.resume(with: .success(try await operation())) } catch { first.resume(with: .failure(error)) }
            }
            Task {
                // Ends with the work: awaiting its value, or its deadline, whichever is first.
                let deadline = Task {
                    try await Task.sleep(for: timeout)
                    first.resume(with: .failure(TimedOut(what: what)))
                    work.cancel()
                }
                await work.value
                deadline.cancel()
            }
        }
    }

    /// Polls `condition` every 50 ms until it holds; throws ``TimedOut`` after `timeout`.
    func eventually(
        _ what: String, timeout: Duration = TestDatabase.hangTimeout, _ condition: () async throws -> Bool
    ) async throws {
        let deadline = ContinuousClock.now + timeout
        while try await !condition() {
            guard ContinuousClock.now < deadline else { throw TimedOut(what: what) }
            try await Task.sleep(for: .milliseconds(50))
        }
    }

    /// Runs blocking work (libpq calls, a thread's wait) on a thread of its own, keeping the cooperative pool free.
    func runBlocking<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            Thread { continuation.resume(with: Result { try body() }) }.start()
        }
    }
#endif
