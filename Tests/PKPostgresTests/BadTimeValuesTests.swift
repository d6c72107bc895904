#if Postgres
    import Foundation
    import Testing

    @testable import PKPostgres

    /// PKPostgres' time parameters with bad values, checked without a database: each is clamped or rejected,
    /// none traps, and none reaches PostgreSQL as an interval it refuses (issue 22 §2).
    struct PostgresBadTimeValuesTests {

        static let intervals: [TimeInterval] = [-.infinity, -1, 0, .nan, 1e-9, 1e19, .infinity]

        /// A retry policy's wait stays within what `make_interval` takes (3e9 s, about 95 years), whatever its values.
        @Test(arguments: intervals)
        func aRetryWaitStaysWithinWhatPostgreSQLTakes(value: TimeInterval) {
            let policies = [
                DurableRetryPolicy(maxAttempts: 3, wait: .constant(value), maximumWait: value),
                DurableRetryPolicy(maxAttempts: 3, wait: .constant(value), jitter: value, maximumWait: 1e19),
                DurableRetryPolicy(maxAttempts: 3, wait: .random(minimum: -value, maximum: value), maximumWait: value),
                DurableRetryPolicy(maxAttempts: 3, wait: .exponential(power: value, period: value, maximum: value)),
            ]
            for policy in policies {
                for attempt in 1...3 {
                    let wait = policy.delay(afterAttempt: attempt)
                    #expect(wait.isFinite && wait >= 0 && wait <= 3e9, "\(policy) gave \(wait)")
                }
            }
        }

        /// A job delayed by NaN or minus infinity runs now, not in 95 years; a huge delay is kept to 3e9 s.
        @Test(arguments: intervals)
        func aDelayedJobRunsWithinReach(delay: TimeInterval) throws {
            let runAt = try #require(DurableJobOptions.delayed(by: delay).runAt)
            let fromNow = runAt.timeIntervalSinceNow
            #expect(fromNow <= 3e9 + 1)
            if delay.isNaN || delay <= 0 { #expect(fromNow < 1) }
        }

        /// Durations longer than `Int64.max` seconds convert without a trap.
        @Test func hugeDurationsConvertToSeconds() {
            #expect(DurableWorker.seconds(.seconds(1e19)).isFinite)
            #expect(DurableWorker.seconds(.seconds(-1e19)) < 0)
        }
    }
#endif
