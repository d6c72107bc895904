#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    /// PKTesting's helpers for durable jobs: checks of what was enqueued (kind, input, options as stored), in a
    /// transaction or not, and one attempt run inline through a real worker (``DurableTestWorker``).
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct DurableTestingTests {
        /// Generous: the machine running the suites may be loaded.
        static let workTimeout: Duration = .seconds(120)

        /// Whether `issue` was recorded in this file with a comment containing every one of `parts`.
        static func isIssue(_ issue: Issue, saying parts: String...) -> Bool {
            let text = issue.comments.map(\.rawValue).joined(separator: "\n")
            return issue.sourceLocation?.fileName == "DurableTestingTests.swift" && parts.allSatisfy(text.contains)
        }

        // MARK: - Enqueue checks

        @Test func theCheckFindsTheJobWithItsInputAndItsOptionsAsStored() async throws {
            try await withFixture { fixture in
                let dependency = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("first"))
                let mark = try await DurableJobMark(fixture.queue)
                let runAt = Date().addingTimeInterval(3_600)
                let options = DurableJobOptions(
                    priority: 5, runAt: runAt, uniqueKey: "report-42", dependencies: [dependency],
                    ignoreFailedDependencies: true,
                    retry: DurableRetryPolicy(maxAttempts: 3, wait: .constant(2), jitter: 0.5),
                    exclusiveCategories: ["printer", "ledger", "printer"], timeout: .milliseconds(1_500),
                    queue: "reports")
                let input = fixture.input("report", value: 42)
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: options)

                let job = try #require(try await PKExpectEnqueued(TestJob.self, on: fixture.queue, since: mark))
                #expect(job.id == id)
                #expect(job.input == input)
                #expect(job.snapshot.state == .blocked)
                #expect(abs(try #require(job.options.runAt).timeIntervalSince(runAt)) < 0.000_01)
                var stored = options
                stored.runAt = job.options.runAt
                stored.exclusiveCategories = ["ledger", "printer"]
                #expect(job.options == stored)
            }
        }

        @Test func aJobTakingItsInputFromAnotherHasNoInputAndNamesItsSource() async throws {
            try await withFixture { fixture in
                let source = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("source"))
                // Enqueued one by one, with a placeholder input.
                _ = try await fixture.queue.enqueue(
                    Relay.self, input: TestOutput(probe: "", label: "", value: 0, attempt: 0),
                    options: DurableJobOptions(inputFrom: source))
                let job = try #require(try await PKExpectEnqueued(Relay.self, on: fixture.queue))
                #expect(job.input == nil)
                #expect(job.options.inputFrom == source)
                #expect(job.options.dependencies == [])
            }
        }

        @Test func aMarkLeavesOutTheJobsEnqueuedBeforeIt() async throws {
            try await withFixture { fixture in
                _ = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("old"))
                let mark = try await DurableJobMark(fixture.queue)
                _ = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("new"))
                _ = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("newer"))

                let all = try await PKExpectEnqueued(TestJob.self, count: 3, on: fixture.queue)
                #expect(all.map(\.input?.label) == ["old", "new", "newer"])
                let since = try await PKExpectEnqueued(TestJob.self, count: 2, on: fixture.queue, since: mark)
                #expect(since.map(\.input?.label) == ["new", "newer"])
                let one = try await PKExpectEnqueued(TestJob.self, on: fixture.queue, since: mark) {
                    $0.input?.label == "newer"
                }
                #expect(one?.input?.label == "newer")
                try await PKExpectNotEnqueued(TestJob.self, on: fixture.queue, since: mark) { $0.input?.label == "old" }
                try await PKExpectNotEnqueued(Relay.self, on: fixture.queue)
                #expect(mark.description.hasPrefix("after job #"))
            }
        }

        @Test func mismatchesRecordIssuesSayingWhatWasExpectedAndWhatWasFound() async throws {
            try await withFixture { fixture in
                let mark = try await DurableJobMark(fixture.queue)
                let a = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("a"))
                let b = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("b"))
                let found = try await EnqueuedDurableJobs(TestJob.self, on: fixture.queue, since: mark)

                // Two where one was expected: both are named.
                withKnownIssue {
                    #expect(PKExpectEnqueued(found) == nil)
                } matching: { issue in
                    Self.isIssue(
                        issue, saying: "expected 1 job of TestJob (kind \"test.job\") enqueued \(mark)",
                        "found 2: \(a) (available, queue \"default\", input {", "; \(b) (")
                }
                // None matching: the kind's other jobs are named.
                withKnownIssue {
                    #expect(PKExpectEnqueued(found) { $0.input?.label == "c" } == nil)
                } matching: { issue in
                    Self.isIssue(
                        issue, saying: "matching the predicate; found none, and 2 that do not match: \(a)", "\(b)")
                }
                // None at all.
                try await withKnownIssue {
                    _ = try await PKExpectEnqueued(Relay.self, on: fixture.queue)
                } matching: { issue in
                    Self.isIssue(
                        issue,
                        saying: "expected 1 job of Relay (kind \"test.relay\") enqueued; found none (no job of "
                            + "that kind at all)")
                }
                // A count.
                withKnownIssue {
                    #expect(PKExpectEnqueued(found, count: 3).count == 2)
                } matching: { issue in
                    Self.isIssue(issue, saying: "expected 3 jobs of TestJob", "found 2: \(a)")
                }
                // Expected none.
                try await withKnownIssue {
                    try await PKExpectNotEnqueued(TestJob.self, on: fixture.queue, since: mark) {
                        $0.input?.label == "b"
                    }
                } matching: { issue in
                    Self.isIssue(issue, saying: "expected no job of TestJob", "found 1: \(b) (")
                }
                // The checks behind them, one message per failure.
                #expect(DurableJobCheck.enqueued(found, count: 2).isEmpty)
                #expect(DurableJobCheck.enqueued(found, count: 0).count == 1)
            }
        }

        @Test func aCheckInsideATransactionSeesItsUncommittedJobs() async throws {
            try await withFixture { fixture in
                struct RolledBack: Error {}
                let queue = fixture.queue
                let input = fixture.input("uncommitted")
                let seen = PKMutex<EnqueuedDurableJobs<TestJob>?>(nil)
                await #expect(throws: RolledBack.self) {
                    try await queue.withTransaction { transaction in
                        let mark = try DurableJobMark(queue, in: transaction)
                        _ = try queue.enqueue(TestJob.self, input: input, in: transaction)
                        seen.withLock {
                            $0 = try? EnqueuedDurableJobs(TestJob.self, on: queue, since: mark, in: transaction)
                        }
                        throw RolledBack()
                    }
                }
                let found = try #require(seen.withLock { $0 })
                #expect(PKExpectEnqueued(found)?.input == input)
                // Rolled back: nothing is left.
                try await PKExpectNotEnqueued(TestJob.self, on: queue)
            }
        }

        @Test func theXCTestFrontEndsPassOnMatchingJobs() async throws {
            try await withFixture { fixture in
                let mark = try await DurableJobMark(fixture.queue)
                _ = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("x"))
                #expect(try await PKAssertEnqueued(TestJob.self, on: fixture.queue, since: mark)?.input?.label == "x")
                #expect(try await PKAssertEnqueued(TestJob.self, count: 1, on: fixture.queue).count == 1)
                try await PKAssertNotEnqueued(Relay.self, on: fixture.queue, since: mark)
            }
        }

        // MARK: - Inline runs

        @Test func workRunsTheJobThroughAWorkerToCompletionAndLeavesNothingRunning() async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                let job = try await tester.work(TestJob.self, input: fixture.input("inline", value: 7))
                #expect(job.state == .completed)
                #expect(job.attempt == 1)
                #expect(job.queue == DurableJobOptions.defaultQueue)
                #expect(job.leaseOwner == nil)
                #expect(
                    try tester.output(of: job, as: TestJob.self)
                        == TestOutput(probe: fixture.probe.name, label: "inline", value: 7, attempt: 1))
                let started = fixture.probe.events(.started)
                #expect(started.map(\.job) == [job.id])
                #expect(started.allSatisfy { $0.worker.hasPrefix("pktesting-") })
                #expect(try await fixture.queue.attempts(of: job.id).map(\.outcome) == [.completed])
                #expect(
                    try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs WHERE state = 'running'") == 0)
                #expect(await tester.temporaries.unreleased(timeout: 40) == [])
                #expect(await fixture.probe.leaks.unreleased(timeout: 40) == [])
            }
        }

        @Test func eachCallRunsOneAttemptAndTheRetryPolicyDecidesWhatFollows() async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                var input = fixture.input("flaky")
                input.failingAttempts = 2
                let options = DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 2, wait: .immediate))

                let first = try await tester.work(TestJob.self, input: input, options: options)
                #expect(first.state == .available)
                #expect(first.attempt == 1)
                #expect(first.errors.count == 1)
                #expect(first.errors.first?.contains("planned failure of flaky on attempt 1") == true)
                #expect(throws: DurableError.jobFailed(first.id, errors: first.errors)) {
                    try tester.output(of: first, as: TestJob.self)
                }

                let second = try await tester.work(first.id, as: TestJob.self)
                #expect(second.id == first.id)
                #expect(second.state == .failed)
                #expect(second.attempt == 2)
                #expect(fixture.probe.events(.started).map(\.attempt) == [1, 2])
                #expect(await tester.temporaries.unreleased(timeout: 40) == [])
            }
        }

        @Test func aSnoozedJobComesBackAvailableWithItsAttemptUnspentAndIsNotRunAgain() async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                var input = fixture.input("sleepy")
                input.snoozingRuns = 1
                input.snoozeMilliseconds = 3_600_000
                let job = try await tester.work(TestJob.self, input: input)
                #expect(job.state == .available)
                #expect(job.attempt == 0)
                #expect(job.runAt > Date().addingTimeInterval(1_800))
                #expect(job.queue == DurableJobOptions.defaultQueue)
                #expect(fixture.probe.startedLabels == ["sleepy"])

                // Not due for an hour: a call by id gives up at its timeout and leaves the job as it was.
                let impatient = DurableTestWorker(queue: fixture.queue, timeout: .seconds(2))
                await #expect(throws: DurableTestWorker.Failure.notStarted(job.id, after: .seconds(2))) {
                    try await impatient.work(job.id, as: TestJob.self)
                }
                let after = try await fixture.queue.job(job.id)
                #expect(after.state == .available)
                #expect(after.queue == DurableJobOptions.defaultQueue)
                #expect(fixture.probe.startedLabels == ["sleepy"])
                #expect(await impatient.temporaries.unreleased(timeout: 40) == [])
            }
        }

        @Test(arguments: ["discard", "cancel"])
        func jobControlEndsTheJobAtOnce(control: String) async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                var input = fixture.input("controlled")
                input.control = control
                let job = try await tester.work(TestJob.self, input: input)
                #expect(job.state == (control == "discard" ? .failed : .cancelled))
                #expect(job.attempt == 1)
                #expect(job.errors.last?.contains(control == "discard" ? "can never succeed" : "nothing left") == true)
                #expect(throws: DurableError.self) { try tester.output(of: job, as: TestJob.self) }
                #expect(fixture.probe.startedLabels == ["controlled"])
            }
        }

        @Test func anAttemptThatOutrunsTheTimeoutIsCancelledAndItsJobToo() async throws {
            try await withFixture { fixture in
                // The job never finishes by itself: the timeout only bounds it, long enough for the claim on a
                // loaded machine (a claim later than that would be reported as not started).
                let tester = DurableTestWorker(queue: fixture.queue, timeout: TestDatabase.hangTimeout)
                var input = fixture.input("endless")
                input.runsUntilCancelled = true
                let error = await #expect(throws: DurableTestWorker.Failure.self) {
                    try await tester.work(TestJob.self, input: input)
                }
                guard case .timedOut(let id, after: TestDatabase.hangTimeout) = error else {
                    Issue.record("expected timedOut, got \(String(describing: error))")
                    return
                }
                #expect(fixture.probe.events(.sawCancellation).count == 1)
                let job = try await fixture.queue.job(id)
                #expect(job.state == .cancelled)
                #expect(job.attempt == 0)
                #expect(await tester.temporaries.unreleased(timeout: 40) == [])
                #expect(await fixture.probe.leaks.unreleased(timeout: 40) == [])
            }
        }

        @Test func cancellingTheCallingTaskStopsTheWorkerAndCancelsTheJob() async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                var input = fixture.input("interrupted")
                input.runsUntilCancelled = true
                let call = Task { try await tester.work(TestJob.self, input: input) }
                try await eventually("the job to start") { fixture.probe.hasStarted("interrupted") }
                call.cancel()
                await #expect(throws: CancellationError.self) { try await call.value }
                #expect(fixture.probe.events(.sawCancellation).count == 1)
                let id = try #require(fixture.probe.events(.started).first?.job)
                #expect(try await fixture.queue.job(id).state == .cancelled)
                #expect(await tester.temporaries.unreleased(timeout: 40) == [])
            }
        }

        @Test func workByIDKeepsTheJobsIdentityAndNamedQueue() async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("queued", value: 3),
                    options: DurableJobOptions(queue: "reports"))
                let job = try await tester.work(id, as: TestJob.self)
                #expect(job.id == id)
                #expect(job.state == .completed)
                #expect(job.queue == "reports")
                #expect(try tester.output(of: job, as: TestJob.self).value == 3)

                await #expect(throws: DurableTestWorker.Failure.notRunnable(id, state: .completed)) {
                    try await tester.work(id, as: TestJob.self)
                }
                await #expect(
                    throws: DurableTestWorker.Failure.kindMismatch(id, kind: TestJob.kind, expected: Relay.kind)
                ) {
                    try await tester.work(id, as: Relay.self)
                }
                #expect(fixture.probe.startedLabels == ["queued"])
            }
        }

        @Test func aJobWhoseInputDoesNotDecodeFailsWithoutWaitingForTheTimeout() async throws {
            try await withFixture { fixture in
                // A day: the call returns once the worker counted the job's outcome.
                let tester = DurableTestWorker(queue: fixture.queue, timeout: .seconds(86_400))
                let id = try await fixture.queue.enqueue(MismatchedJob.self, input: UnrelatedInput(number: 1))
                let job = try await tester.work(id, as: TestJob.self)
                #expect(job.state == .failed)
                #expect(job.errors.last?.contains("cannot be decoded") == true)
                #expect(fixture.probe.startedLabels == [])
                await #expect(throws: DurableError.self) {
                    _ = try await EnqueuedDurableJobs(TestJob.self, on: fixture.queue)
                }
                #expect(await tester.temporaries.unreleased(timeout: 40) == [])
            }
        }

        @Test func workRefusesAUniqueKeyAnotherJobHolds() async throws {
            try await withFixture { fixture in
                let tester = DurableTestWorker(queue: fixture.queue, timeout: Self.workTimeout)
                let options = DurableJobOptions(uniqueKey: "only-once")
                let holder = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("holder"), options: options)
                await #expect(throws: DurableTestWorker.Failure.uniqueKeyTaken(by: holder)) {
                    try await tester.work(TestJob.self, input: fixture.input("second"), options: options)
                }
                #expect(try await fixture.queue.job(holder).state == .available)
                #expect(fixture.probe.startedLabels == [])
            }
        }
    }
#endif
