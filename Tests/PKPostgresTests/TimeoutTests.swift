#if Postgres
    import Foundation
    import PKCore
    import PKPostgres
    import Testing

    /// A procedure with a short timeout of its kind's own.
    final class HastyJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`) is behind its PKMutexes.
        static let kind = "test.hasty"
        static var durableTimeout: Duration { .milliseconds(300) }
        private let inputValue = PKMutex<Pending<TestInput>>(.pending)
        private let outputValue = PKMutex<Pending<ProcedureResult<TestOutput>>>(.pending)

        var input: Pending<TestInput> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<TestOutput>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() {
            // Runs until cancelled (bounded, so that a failing test does not leave it running).
            let deadline = Date().addingTimeInterval(30)
            while !isCancelled, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            finish(withResult: .success(TestOutput(probe: "", label: "hasty", value: 0, attempt: 1)))
        }
    }

    /// Timeouts per kind and per job: a job that runs too long is cancelled and its attempt fails; one whose
    /// procedure ignores that is given up, so that it runs elsewhere.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct TimeoutTests {

        @Test func aJobThatRunsPastItsTimeoutIsCancelledAndItsAttemptFails() async throws {
            try await withFixture { fixture in
                var input = fixture.input("slow")
                input.runsUntilCancelled = true
                // Two seconds: long enough for execute() to begin (and so see the cancellation) on a machine that runs
                // the other suites meanwhile (at 300 ms it once timed out before its execute() in CI).
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never, timeout: .seconds(2)))
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.errors.count == 1)
                #expect(job.errors.first?.contains("timed out after 2.0 s") == true, "\(job.errors)")
                #expect(fixture.probe.events(.sawCancellation).count == 1)
                #expect(worker.statistics.timedOut == 1)
                try await eventually("the slot to be free") { worker.runningJobs.isEmpty }
                #expect(worker.statistics.stuck == 0)
            }
        }

        @Test func aKindsTimeoutAppliesWhenTheJobSetsNone() async throws {
            try await withFixture { fixture in
                try fixture.queue.register(HastyJob.self)
                let id = try await fixture.queue.enqueue(
                    HastyJob.self, input: fixture.input("hasty"), options: DurableJobOptions(retry: .never))
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.errors.first?.contains("timed out after 0.3 s") == true, "\(job.errors)")
                #expect(worker.statistics.timedOut == 1)
            }
        }

        @Test func aJobsOwnTimeoutOverridesItsKinds() async throws {
            try await withFixture { fixture in
                var input = fixture.input("patient")
                input.sleepMilliseconds = 600  // longer than HastyJob's 300 ms, shorter than this job's own
                try fixture.queue.register(HastyJob.self)
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never, timeout: .seconds(30)))
                let worker = try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(id).state == .completed)
                #expect(worker.statistics.timedOut == 0)
            }
        }

        @Test func aProcedureThatIgnoresItsTimeoutIsGivenUpSoTheJobRunsAgainWhileItsSlotStaysTaken() async throws {
            try await withFixture { fixture in
                var input = fixture.input("stubborn")
                input.ignoresCancellationOnAttempts = 1
                // A timeout of eight seconds: each attempt must start within it on a machine that runs the other
                // suites meanwhile (at 300 ms, and once at 1 s with 44 suites, both attempts timed out before their
                // execute() in CI; at 3 s, the first attempt did once in a local run of all the suites).
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: input,
                    options: DurableJobOptions(
                        retry: DurableRetryPolicy(maxAttempts: 2, wait: .immediate), timeout: .seconds(8)))
                // Given up one lease (1 s) after the timeout; the second attempt runs in the other slot.
                let worker = try fixture.startWorker(concurrency: 2, lease: .seconds(1))
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                #expect(job.attempt == 2)
                #expect(job.errors.count == 1)
                #expect(job.errors.first?.contains("timed out after 8.0 s") == true, "\(job.errors)")
                #expect(job.errors.first?.contains("did not stop") == true, "\(job.errors)")
                #expect(fixture.probe.events(.started).map(\.attempt) == [1, 2])
                // The first attempt still runs, in a slot of its own.
                #expect(worker.statistics.stuck == 1)
                #expect(worker.runningJobs == [id])
                fixture.probe.releaseWaitingJobs()
                try await eventually("the stuck slot to be freed") {
                    worker.statistics.stuck == 0 && worker.runningJobs.isEmpty
                }
                // Its late outcome changed nothing.
                #expect(try await fixture.queue.job(id).state == .completed)
                #expect(fixture.probe.events(.completing).map(\.attempt) == [2])
                #expect(worker.statistics.completed == 1)
                #expect(worker.statistics.timedOut == 1)
                #expect(fixture.probe.events(.sawCancellation).map(\.attempt) == [1])
            }
        }

        @Test(arguments: [Duration.zero, .seconds(-1), .seconds(366 * 86_400)])
        func anOutOfRangeTimeoutIsRefusedAtEnqueue(timeout: Duration) async throws {
            try await withFixture { fixture in
                let error = await #expect(throws: DurableError.self) {
                    try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input("bad"), options: DurableJobOptions(timeout: timeout))
                }
                guard case .invalidOption = error else {
                    Issue.record("expected invalidOption, got \(String(describing: error))")
                    return
                }
            }
        }
    }
#endif
