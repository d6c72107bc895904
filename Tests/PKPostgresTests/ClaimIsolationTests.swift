#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// A claimed batch is read row by row: a row this build cannot read is given back, the rest run.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct ClaimIsolationTests {

        /// A retry policy as a newer version might write it: a wait strategy this build does not know.
        static let newerPolicy = #"{"maxAttempts":3,"jitter":0,"maximumWait":60,"wait":{"kind":"decorrelated","a":1}}"#

        @Test func aJobWrittenByANewerVersionIsGivenBackWithoutAnAttemptAndTheRestOfItsBatchRuns() async throws {
            try await withFixture { fixture in
                var ids: [JobID] = []
                for index in 0..<3 {
                    ids.append(try await fixture.queue.enqueue(TestJob.self, input: fixture.input("job \(index)")))
                }
                try await fixture.sql(
                    "UPDATE \(fixture.schema).jobs SET retry = $2::jsonb WHERE id = $1::bigint",
                    [String(ids[1].rawValue), Self.newerPolicy])
                // One claim takes all three.
                let worker = try fixture.startWorker(concurrency: 4)
                #expect(try await fixture.waitUntilFinished(ids[0]).state == .completed)
                #expect(try await fixture.waitUntilFinished(ids[2]).state == .completed)
                try await eventually("the unreadable job to be given back") {
                    try await fixture.queue.job(ids[1]).leaseOwner == nil && worker.runningJobs.isEmpty
                }
                // Several polls later it has been neither run nor charged: this worker leaves it to others.
                try await Task.sleep(for: TestDatabase.pollInterval * 5)
                let unread = try await fixture.queue.job(ids[1])
                #expect(unread.state == .available)
                #expect(unread.attempt == 0)
                #expect(unread.errors.isEmpty)
                #expect(worker.statistics.unreadable == 1)
                #expect(worker.statistics.claimed == 2)
                #expect(fixture.probe.startedLabels.sorted() == ["job 0", "job 2"])
                // A build that reads it (here: the policy put back) runs it with its first attempt.
                try await fixture.sql(
                    "UPDATE \(fixture.schema).jobs SET retry = $2::jsonb WHERE id = $1::bigint",
                    [
                        String(ids[1].rawValue),
                        String(decoding: try JSONEncoder().encode(DurableRetryPolicy.never), as: UTF8.self),
                    ])
                try fixture.startWorker()
                let finished = try await fixture.waitUntilFinished(ids[1])
                #expect(finished.state == .completed)
                #expect(finished.attempt == 1)
            }
        }

        @Test func aJobWhoseCategoryIsHeldWaitsOutOfTheClaimsWayAndRunsOnceItIsReleased() async throws {
            try await withFixture { fixture in
                var holding = fixture.input("holder")
                holding.runsUntilCancelled = true
                let holder = try await fixture.queue.enqueue(
                    TestJob.self, input: holding, options: DurableJobOptions(exclusiveCategories: ["ledger"]))
                let worker = try fixture.startWorker(concurrency: 4)
                try await eventually("the holder to start") { fixture.probe.hasStarted("holder") }
                let waiting = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("waiter"),
                    options: DurableJobOptions(exclusiveCategories: ["ledger"]))
                let free = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("free"))
                #expect(try await fixture.waitUntilFinished(free).state == .completed)
                // Parked: `waiting` in the table, `available` to users, and no attempt spent.
                try await eventually("the waiter to be parked") {
                    try await fixture.sql(
                        "SELECT state FROM \(fixture.schema).jobs WHERE id = $1::bigint", [String(waiting.rawValue)]
                    ).rows.first?["state"] == "waiting"
                }
                let parked = try await fixture.queue.job(waiting)
                #expect(parked.state == .available)
                #expect(parked.attempt == 0)
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(holder).state == .completed)
                let job = try await fixture.waitUntilFinished(waiting)
                #expect(job.state == .completed)
                #expect(job.attempt == 1)
                #expect(worker.statistics.claimed == 3)
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).category_waits") == 0)
            }
        }

        @Test func aReleasedCategoryWakesTheJobWaitingForItOnAnotherWorkerWithoutWaitingForAPoll() async throws {
            try await withFixture { fixture in
                // The holder runs on a worker that does not run the waiter's kind, so that the worker the
                // waiter needs hears of the release only through a notification: its poll is far longer than the
                // test's hang guard.
                let holders = try fixture.makeQueue()
                try holders.register(TestJob.self)
                let waiters = try fixture.makeQueue()
                try waiters.register(Relay.self)
                try fixture.startWorker(concurrency: 1, queue: holders, pollInterval: .seconds(60))
                try fixture.startWorker(concurrency: 1, queue: waiters, pollInterval: .seconds(60))
                var holding = fixture.input("holder")
                holding.runsUntilCancelled = true
                let holder = try await fixture.queue.enqueue(
                    TestJob.self, input: holding, options: DurableJobOptions(exclusiveCategories: ["printer"]))
                try await eventually("the holder to start") { fixture.probe.hasStarted("holder") }
                let waiting = try await fixture.queue.enqueue(
                    Relay.self, input: TestOutput(probe: fixture.probe.name, label: "waiter", value: 1, attempt: 0),
                    options: DurableJobOptions(exclusiveCategories: ["printer"]))
                try await eventually("the waiter to be parked") {
                    try await fixture.sql(
                        "SELECT state FROM \(fixture.schema).jobs WHERE id = $1::bigint", [String(waiting.rawValue)]
                    ).rows.first?["state"] == "waiting"
                }
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(holder).state == .completed)
                #expect(try await fixture.waitUntilFinished(waiting).state == .completed)
                #expect(fixture.probe.hasStarted("waiter>relay"))
            }
        }
    }
#endif
