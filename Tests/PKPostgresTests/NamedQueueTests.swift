#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Named queues: a job waits in the queue it was enqueued in, only workers serving that queue claim it, and a
    /// paused queue is left alone fleet-wide until it is resumed.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct NamedQueueTests {

        @Test func aWorkerClaimsOnlyFromTheQueuesItServes() async throws {
            try await withFixture { fixture in
                let mail = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("mail"), options: DurableJobOptions(queue: "mail"))
                let plain = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("plain"))
                let reports = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("reports"), options: DurableJobOptions(queue: "reports"))
                try fixture.startWorker(queues: ["mail", "default"])
                _ = try await fixture.waitUntilFinished(mail)
                _ = try await fixture.waitUntilFinished(plain)
                // The worker has claimed all it could: the reports job stays available, for a worker serving it.
                let waiting = try await fixture.queue.job(reports)
                #expect(waiting.state == .available)
                #expect(waiting.queue == "reports")
                #expect(Set(fixture.probe.startedLabels) == ["mail", "plain"])
                try fixture.startWorker(queues: ["reports"])
                #expect(try await fixture.waitUntilFinished(reports).state == .completed)
                #expect(try await fixture.queue.job(mail).queue == "mail")
                #expect(try await fixture.queue.job(plain).queue == DurableJobOptions.defaultQueue)
            }
        }

        @Test func aPausedQueueIsLeftAloneUntilResumedAndOtherQueuesRunMeanwhile() async throws {
            try await withFixture { fixture in
                try await fixture.queue.pause(queue: "mail")
                #expect(try await fixture.queue.queueStatistics().paused == ["mail"])
                let held = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("held"), options: DurableJobOptions(queue: "mail"))
                let other = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("other"))
                try fixture.startWorker(queues: ["mail", "default"])
                _ = try await fixture.waitUntilFinished(other)
                // Several polls later the paused queue's job has not been claimed.
                try await Task.sleep(for: TestDatabase.pollInterval * 5)
                #expect(try await fixture.queue.job(held).state == .available)
                #expect(try await fixture.queue.attempts(of: held).isEmpty)
                try await fixture.queue.resume(queue: "mail")
                #expect(try await fixture.queue.queueStatistics().paused.isEmpty)
                #expect(try await fixture.waitUntilFinished(held).state == .completed)
            }
        }

        @Test func badQueueNamesAreRefusedWithATypedError() async throws {
            try await withFixture { fixture in
                for name in ["", "has space", String(repeating: "q", count: 65), "quote'", "ünïcode"] {
                    await #expect(throws: DurableError.self) {
                        try await fixture.queue.enqueue(
                            TestJob.self, input: fixture.input("bad"), options: DurableJobOptions(queue: name))
                    }
                    await #expect(throws: DurableError.self) { try await fixture.queue.pause(queue: name) }
                    #expect(throws: DurableError.self) { try fixture.makeWorker(queues: [name]) }
                }
                #expect(throws: DurableError.self) { try fixture.makeWorker(queues: []) }
                let stored = try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs")
                #expect(stored == 0)
            }
        }

        @Test func statisticsCountJobsByQueueAndState() async throws {
            try await withFixture { fixture in
                for label in ["a", "b"] {
                    _ = try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input(label), options: DurableJobOptions(queue: "mail"))
                }
                let cancelled = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("c"))
                #expect(try await fixture.queue.cancel(cancelled) == .cancelled)
                let statistics = try await fixture.queue.queueStatistics()
                #expect(statistics.count(queue: "mail", state: .available) == 2)
                #expect(statistics.count(queue: "default", state: .cancelled) == 1)
                #expect(statistics.count(queue: "default", state: .available) == 0)
                #expect(statistics.counts.keys.sorted() == ["default", "mail"])
            }
        }
    }
#endif
