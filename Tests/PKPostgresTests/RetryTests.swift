#if Postgres
    import Foundation
    import PKCore
    import Testing

    @testable import PKPostgres

    /// Failed attempts, retries, the dead-letter state, and the retry policy's waits.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct RetryTests {

        /// Retries at once, so that the tests wait for nothing.
        static func immediate(_ maxAttempts: Int) -> DurableJobOptions {
            DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: maxAttempts, wait: .immediate))
        }

        /// A job retried at once is often claimed again by the worker still recording its failure: both runs are
        /// held (each by its lease token), and the older one's end must not touch the newer one. Keyed by job id
        /// alone, the newer attempt's entry was overwritten and then freed (its outcome never recorded, the job
        /// reaped as if its live worker had died), or cancelled by a heartbeat's answer for the older one: a few
        /// jobs in a thousand needed a third attempt.
        @Test(arguments: [1, 2])
        func aJobRetriedAtOnceByTheWorkerRecordingItsFailureRunsItsSecondAttemptOnce(concurrency: Int) async throws {
            try await withFixture { fixture in
                let worker = try fixture.startWorker(concurrency: concurrency)
                var extra: [String] = []
                for index in 0..<200 {
                    var input = fixture.input("retried \(index)")
                    input.failingAttempts = 1
                    let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.immediate(5))
                    let job = try await fixture.waitUntilFinished(id)
                    if job.state != .completed || job.attempt != 2 {
                        extra.append("\(id): \(job.state), attempt \(job.attempt), errors \(job.errors)")
                    }
                }
                #expect(extra.isEmpty, "\(extra.count) jobs took more than two attempts: \(extra.prefix(3))")
                #expect(worker.statistics.leasesLost == 0)
                #expect(worker.statistics.reaped == 0)
            }
        }

        @Test(arguments: [1, 3])
        func aJobThatFailsItsFirstAttemptsCompletesOnTheNextWithItsErrorHistory(failures: Int) async throws {
            try await withFixture { fixture in
                var input = fixture.input("flaky", value: 7)
                input.failingAttempts = failures
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.immediate(5))
                try fixture.startWorker()
                let output = try await fixture.result(of: id, as: TestJob.self)
                #expect(output.attempt == failures + 1)
                #expect(output.value == 7)
                let job = try await fixture.queue.job(id)
                #expect(job.state == .completed)
                #expect(job.attempt == failures + 1)
                #expect(job.errors.count == failures)
                for (index, error) in job.errors.enumerated() {
                    #expect(error.contains("attempt \(index + 1)"))
                    #expect(error.contains(PlannedFailure(label: "flaky", attempt: index + 1).description))
                }
                #expect(fixture.probe.events(.started).map(\.attempt) == Array(1...failures + 1))
                #expect(fixture.probe.events(.completing).map(\.attempt) == [failures + 1])
            }
        }

        @Test func aJobThatAlwaysFailsLandsInFailedAfterItsLastAttempt() async throws {
            try await withFixture { fixture in
                var input = fixture.input("doomed")
                input.failingAttempts = .max
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.immediate(3))
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 3)
                #expect(job.maxAttempts == 3)
                #expect(job.errors.count == 3)
                #expect(job.outputJSON == nil)
                await #expect(throws: DurableError.jobFailed(id, errors: job.errors)) {
                    try await fixture.result(of: id, as: TestJob.self)
                }
                #expect(fixture.probe.events(.started).map(\.attempt) == [1, 2, 3])
                #expect(fixture.probe.events(.completing).isEmpty)
            }
        }

        @Test func aJobWithoutRetriesFailsForGoodOnItsFirstFailure() async throws {
            try await withFixture { fixture in
                var input = fixture.input("once")
                input.failingAttempts = 1
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never))
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 1)
                #expect(job.errors.count == 1)
            }
        }

        @Test func anInputOfAnotherShapeFailsAtOnceWithoutSpendingRetries() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(
                    MismatchedJob.self, input: UnrelatedInput(number: 3), options: Self.immediate(5))
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 1)
                #expect(job.errors.count == 1)
                #expect(job.errors.first?.contains("The input of a \(TestJob.kind) job cannot be decoded") == true)
                #expect(fixture.probe.events.isEmpty)
            }
        }

        @Test func aJobStoredWithoutAnInputFailsAtOnceWithoutSpendingRetries() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                let retry = try DurableCoding.encode(DurableRetryPolicy(maxAttempts: 5, wait: .immediate))
                let inserted = try await fixture.sql(
                    """
                    INSERT INTO \(fixture.schema).jobs (kind, state, input, retry, max_attempts)
                    VALUES ($1, 'available', NULL, $2::jsonb, 5) RETURNING id
                    """, [TestJob.kind, retry])
                let id = JobID(rawValue: try #require(inserted.rows.first).int64("id"))
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 1)
                #expect(job.errors.first?.contains("no input was stored") == true)
            }
        }

        @Test func aCompletionHookThatThrowsRollsTheCompletionBackAndFailsTheAttempt() async throws {
            try await withFixture { fixture in
                var input = fixture.input("hooked")
                input.effectsTable = "\(fixture.schema).no_such_table"
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.immediate(2))
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 2)
                #expect(job.outputJSON == nil)
                #expect(job.errors.count == 2)
                #expect(job.errors.allSatisfy { $0.contains("no_such_table") })
                #expect(fixture.probe.events(.completing).map(\.attempt) == [1, 2])
            }
        }

        // MARK: - The policy

        static let strategies: [WaitStrategy] = [
            .immediate, .constant(2.5), .incrementing(initial: 1, increment: 0.5),
            .fibonacci(period: 0.25, maximum: 60),
            .exponential(power: 3, period: 0.5, maximum: 120), .random(minimum: 0.1, maximum: 0.9),
        ]

        @Test(arguments: strategies)
        func aPolicyRoundTripsThroughJSONWithEveryWaitStrategy(strategy: WaitStrategy) throws {
            let policy = DurableRetryPolicy(maxAttempts: 7, wait: strategy, jitter: 0.25, maximumWait: 90)
            let decoded = try JSONDecoder().decode(DurableRetryPolicy.self, from: try JSONEncoder().encode(policy))
            #expect(decoded == policy)
        }

        @Test func nonFiniteValuesAreStoredAsFiniteOnes() throws {
            let policy = DurableRetryPolicy(
                maxAttempts: 2, wait: .constant(.infinity), jitter: .nan, maximumWait: .infinity)
            let decoded = try JSONDecoder().decode(DurableRetryPolicy.self, from: try JSONEncoder().encode(policy))
            #expect(decoded.jitter == 0)
            #expect(decoded.maximumWait.isFinite)
            guard case .constant(let wait) = decoded.wait else {
                Issue.record("expected a constant wait, got \(decoded.wait)")
                return
            }
            #expect(wait.isFinite)
        }

        @Test func anUnknownStoredStrategyIsADecodingError() {
            let json = #"{"maxAttempts":2,"jitter":0,"maximumWait":10,"wait":{"kind":"sometimes"}}"#
            #expect(throws: DecodingError.self) {
                try JSONDecoder().decode(DurableRetryPolicy.self, from: Data(json.utf8))
            }
        }

        @Test func theDelayFollowsTheStrategyAndIsCappedByTheMaximumWait() {
            let exponential = DurableRetryPolicy(
                maxAttempts: 10, wait: .exponential(power: 2, period: 1, maximum: 300), maximumWait: 5)
            #expect((1...5).map { exponential.delay(afterAttempt: $0) } == [1, 2, 4, 5, 5])
            let incrementing = DurableRetryPolicy(maxAttempts: 10, wait: .incrementing(initial: 1, increment: 2))
            #expect((1...3).map { incrementing.delay(afterAttempt: $0) } == [1, 3, 5])
            let immediate = DurableRetryPolicy(maxAttempts: 10, wait: .immediate)
            #expect(immediate.delay(afterAttempt: 1) == 0)
        }

        @Test func theJitterAddsAtMostItsValue() {
            let policy = DurableRetryPolicy(maxAttempts: 10, wait: .constant(1), jitter: 0.5)
            for _ in 0..<100 {
                #expect((1...1.5).contains(policy.delay(afterAttempt: 1)))
            }
        }

        static let extremePolicies: [DurableRetryPolicy] = [
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(.greatestFiniteMagnitude)),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(.infinity), maximumWait: .infinity),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(-.infinity)),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(.nan), maximumWait: .nan),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(-5), maximumWait: -1),
            DurableRetryPolicy(
                maxAttempts: 3,
                wait: .incrementing(initial: .greatestFiniteMagnitude, increment: .greatestFiniteMagnitude)),
            DurableRetryPolicy(maxAttempts: 3, wait: .fibonacci(period: .nan, maximum: .infinity)),
            DurableRetryPolicy(maxAttempts: 3, wait: .fibonacci(period: 1e300, maximum: .greatestFiniteMagnitude)),
            DurableRetryPolicy(maxAttempts: 3, wait: .exponential(power: 1e10, period: 1e300, maximum: .infinity)),
            DurableRetryPolicy(maxAttempts: 3, wait: .exponential(power: .nan, period: .nan, maximum: .nan)),
            DurableRetryPolicy(maxAttempts: 3, wait: .random(minimum: 0, maximum: .infinity)),
            DurableRetryPolicy(
                maxAttempts: 3, wait: .random(minimum: -.greatestFiniteMagnitude, maximum: .greatestFiniteMagnitude)),
            DurableRetryPolicy(maxAttempts: 3, wait: .random(minimum: .nan, maximum: .nan)),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(1), jitter: .infinity),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(1), jitter: .greatestFiniteMagnitude),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(1), jitter: .nan),
            DurableRetryPolicy(maxAttempts: 3, wait: .constant(1), jitter: -3),
        ]

        @Test(arguments: extremePolicies)
        func theDelayIsAFiniteWaitWithinTheMaximumForAnyValues(policy: DurableRetryPolicy) {
            let cap = policy.maximumWait.isFinite ? max(0, policy.maximumWait) : 86_400 * 365
            for attempt in [Int.min, -1, 0, 1, 2, 3, 50, 10_000, Int.max] {
                let delay = policy.delay(afterAttempt: attempt)
                #expect(delay.isFinite)
                #expect((0...cap).contains(delay), "attempt \(attempt): \(delay)")
            }
        }

        @Test(arguments: extremePolicies)
        func aPolicyWithAnyValuesCanBeStoredAndReadBack(policy: DurableRetryPolicy) throws {
            let decoded = try JSONDecoder().decode(DurableRetryPolicy.self, from: try JSONEncoder().encode(policy))
            #expect(decoded.maxAttempts == policy.maxAttempts)
            #expect(decoded.delay(afterAttempt: 2).isFinite)
        }
    }
#endif
