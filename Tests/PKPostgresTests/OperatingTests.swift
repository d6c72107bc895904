#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// What an operator reads and does: listings with filters and paging, each attempt's history, retrying,
    /// deleting and pruning jobs.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct OperatingTests {

        static func retrying(_ attempts: Int) -> DurableJobOptions {
            DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: attempts, wait: .immediate))
        }

        @Test func listingsFilterByStateKindAndQueueAndPageById() async throws {
            try await withFixture { fixture in
                var ids: [JobID] = []
                for index in 0..<5 {
                    ids.append(
                        try await fixture.queue.enqueue(
                            TestJob.self, input: fixture.input("job\(index)"),
                            options: DurableJobOptions(queue: index.isMultiple(of: 2) ? "even" : "odd")))
                }
                #expect(try await fixture.queue.cancel(ids[4]) == .cancelled)
                let all = try await fixture.queue.jobs()
                #expect(all.map(\.id) == ids)
                let even = try await fixture.queue.jobs(DurableJobFilter(queues: ["even"]))
                #expect(even.map(\.id) == [ids[0], ids[2], ids[4]])
                let available = try await fixture.queue.jobs(DurableJobFilter(states: [.available], queues: ["even"]))
                #expect(available.map(\.id) == [ids[0], ids[2]])
                #expect(try await fixture.queue.jobs(DurableJobFilter(kinds: ["no.such.kind"])).isEmpty)
                let firstPage = try await fixture.queue.jobs(DurableJobFilter(limit: 2))
                #expect(firstPage.map(\.id) == [ids[0], ids[1]])
                let secondPage = try await fixture.queue.jobs(DurableJobFilter(afterID: firstPage.last?.id, limit: 2))
                #expect(secondPage.map(\.id) == [ids[2], ids[3]])
                let future = try await fixture.queue.jobs(DurableJobFilter(createdAfter: Date().addingTimeInterval(60)))
                #expect(future.isEmpty)
                #expect(all.first?.inputJSON?.contains("job0") == true)
                await #expect(throws: DurableError.self) { try await fixture.queue.jobs(DurableJobFilter(limit: 0)) }
            }
        }

        @Test func eachAttemptIsRecordedWithItsWorkerTimesAndError() async throws {
            try await withFixture { fixture in
                var input = fixture.input("flaky")
                input.failingAttempts = 2
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.retrying(3))
                let worker = try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(id).state == .completed)
                let attempts = try await fixture.queue.attempts(of: id)
                #expect(attempts.map(\.number) == [1, 2, 3])
                #expect(attempts.map(\.outcome) == [.failed, .failed, .completed])
                #expect(attempts.allSatisfy { $0.worker == worker.name })
                #expect(attempts[0].error == "attempt 1: planned failure of flaky on attempt 1")
                #expect(attempts[1].error == "attempt 2: planned failure of flaky on attempt 2")
                #expect(attempts[2].error == nil)
                for attempt in attempts {
                    let finished = try #require(attempt.finishedAt)
                    #expect(finished >= attempt.startedAt)
                }
                #expect(attempts[1].startedAt >= attempts[0].startedAt)
                let failed = try await fixture.queue.failedAttempts(of: [id])
                #expect(failed[id]?.map(\.number) == [1, 2])
                await #expect(throws: DurableError.jobNotFound(JobID(rawValue: 999_999_999))) {
                    try await fixture.queue.attempts(of: JobID(rawValue: 999_999_999))
                }
            }
        }

        @Test func anAttemptGivenBackLeavesNoRecord() async throws {
            try await withFixture { fixture in
                var input = fixture.input("drained")
                input.runsUntilCancelled = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let first = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("drained") }
                #expect(try await fixture.queue.attempts(of: id).map(\.outcome) == [nil], "running")
                // A shutdown gives the running job back without spending its attempt.
                try await fixture.stop(first, gracePeriod: .milliseconds(200))
                #expect(try await fixture.queue.job(id).attempt == 0)
                #expect(try await fixture.queue.attempts(of: id).isEmpty)
            }
        }

        @Test func aFailedJobRetriedRunsAgainWithItsHistoryKept() async throws {
            try await withFixture { fixture in
                var input = fixture.input("dead")
                input.failingAttempts = 1
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.retrying(1))
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(id).state == .failed)
                let notFailed = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("fine"))
                _ = try await fixture.waitUntilFinished(notFailed)
                #expect(try await fixture.queue.retry([id, notFailed]) == [id])
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                #expect(job.attempt == 2)
                #expect(job.maxAttempts == 2)
                #expect(try await fixture.queue.attempts(of: id).map(\.outcome) == [.failed, .completed])
                #expect(job.errors == ["attempt 1: planned failure of dead on attempt 1"])
            }
        }

        @Test func retryingByFilterRetriesOnlyTheFailedAndCancelledJobsItMatches() async throws {
            try await withFixture { fixture in
                var cancelled: [JobID] = []
                for index in 0..<3 {
                    let id = try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input("c\(index)"),
                        options: DurableJobOptions(queue: index == 2 ? "other" : "mail"))
                    #expect(try await fixture.queue.cancel(id) == .cancelled)
                    cancelled.append(id)
                }
                let waiting = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("w"), options: DurableJobOptions(queue: "mail"))
                #expect(try await fixture.queue.retry(matching: DurableJobFilter(queues: ["mail"])) == 2)
                #expect(try await fixture.queue.job(cancelled[0]).state == .available)
                #expect(try await fixture.queue.job(cancelled[1]).state == .available)
                #expect(try await fixture.queue.job(cancelled[2]).state == .cancelled)
                #expect(try await fixture.queue.job(waiting).state == .available)
                #expect(try await fixture.queue.retry(matching: DurableJobFilter(states: [.completed])) == 0)
            }
        }

        @Test func deletingKeepsRunningJobsAndJobsAnUnfinishedJobDependsOn() async throws {
            try await withFixture { fixture in
                let source = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("source"))
                let dependent = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("dependent"), options: DurableJobOptions(dependencies: [source]))
                var input = fixture.input("running")
                input.runsUntilCancelled = true
                let running = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(queue: "busy"))
                try fixture.startWorker(queues: ["busy"])
                try await eventually("the job to start") { fixture.probe.hasStarted("running") }
                #expect(try await fixture.queue.delete([source, running]) == [])
                #expect(try await fixture.queue.delete([source, dependent]) == [source, dependent].sorted())
                await #expect(throws: DurableError.jobNotFound(source)) { try await fixture.queue.job(source) }
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(running).state == .completed)
                #expect(try await fixture.queue.delete([running]) == [running])
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).attempts") == 0)
            }
        }

        @Test func pruningByStateLeavesTheOtherStates() async throws {
            try await withFixture { fixture in
                let done = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done"))
                try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(done)
                let cancelled = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("cancelled"), options: DurableJobOptions(queue: "idle"))
                #expect(try await fixture.queue.cancel(cancelled) == .cancelled)
                #expect(try await fixture.queue.prune(state: .completed, finishedBefore: .seconds(3_600)) == 0)
                #expect(try await fixture.queue.prune(state: .completed, finishedBefore: .zero) == 1)
                #expect(try await fixture.queue.job(cancelled).state == .cancelled)
                await #expect(throws: DurableError.self) {
                    try await fixture.queue.prune(state: .running, finishedBefore: .zero)
                }
            }
        }

        @Test func statisticsShowTheOldestDueJobsAgeTheJobsEachWorkerRunsAndTheLastMinutesThroughput() async throws {
            try await withFixture { fixture in
                // Due five minutes ago, in a queue no worker serves.
                for label in ["late 1", "late 2"] {
                    _ = try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input(label),
                        options: DurableJobOptions(runAt: Date().addingTimeInterval(-300), queue: "unserved"))
                }
                // Not due yet: no age.
                _ = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("future"),
                    options: DurableJobOptions(runAt: Date().addingTimeInterval(3_600), queue: "future"))
                var waiting = fixture.input("waiting")
                waiting.runsUntilCancelled = true
                let held = try await fixture.queue.enqueue(TestJob.self, input: waiting)
                var quick: [JobID] = []
                for index in 0..<3 {
                    quick.append(try await fixture.queue.enqueue(TestJob.self, input: fixture.input("quick \(index)")))
                }
                let worker = try fixture.startWorker(concurrency: 2)
                for id in quick { #expect(try await fixture.waitUntilFinished(id).state == .completed) }
                try await eventually("the waiting job to run") { try await fixture.queue.job(held).state == .running }
                let statistics = try await fixture.queue.queueStatistics()
                #expect(try #require(statistics.oldestAvailableAge["unserved"]) >= .seconds(290))
                #expect(statistics.oldestAvailableAge["future"] == nil)
                #expect(statistics.oldestAvailableAge["default"] == nil)
                #expect(statistics.runningByWorker == [worker.name: 1])
                #expect(statistics.finishedLastMinute["default"]?[.completed] == 3)
                #expect(statistics.finishedLastMinute["unserved"] == nil)
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(held).state == .completed)
            }
        }
    }
#endif
