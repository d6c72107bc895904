#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// The reaper after an outage, and pruning beside enqueues that name what it would delete.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct ReaperTests {

        @Test func aBacklogOfExpiredLeasesIsReapedInBatchesWithoutDelayingTheReapersOwnHeartbeat() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                // What an outage longer than a lease leaves behind: tens of thousands of jobs of crashed workers, of
                // a kind this worker does not run (so they stay available once requeued). Reaped in one transaction
                // on the heartbeat's connection, they took longer than a lease.
                let count = 40_000
                let retry = String(decoding: try JSONEncoder().encode(DurableRetryPolicy.standard), as: UTF8.self)
                try await fixture.sql(
                    """
                    INSERT INTO \(fixture.schema).jobs (kind, state, input, retry, attempt, max_attempts, lease_owner,
                        lease_token, lease_expires_at, started_at)
                    SELECT 'test.elsewhere', 'running', '{}', $1::jsonb, 1, 5, 'crashed', -g, now() - interval '1 second',
                        now() - interval '1 minute'
                    FROM generate_series(1, $2::integer) g
                    """, [retry, String(count)])
                var input = fixture.input("own")
                input.runsUntilCancelled = true
                let own = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker()
                try await eventually("the worker's own job to start") { fixture.probe.hasStarted("own") }
                // Meanwhile the database never sees the worker's own lease lapse: its heartbeat goes on.
                var lapsed = 0
                var samples = 0
                try await eventually("the backlog to be reaped", timeout: .seconds(60)) {
                    let row = try await fixture.sql(
                        "SELECT lease_expires_at < now() AS lapsed FROM \(fixture.schema).jobs WHERE id = $1::bigint",
                        [String(own.rawValue)]
                    ).rows.first
                    samples += 1
                    if try row?.bool("lapsed") == true { lapsed += 1 }
                    return worker.statistics.reaped == count
                }
                #expect(samples > 1)
                #expect(lapsed == 0, "the worker's own lease lapsed in \(lapsed) of \(samples) samples")
                let left = try await fixture.count(
                    "SELECT count(*) FROM \(fixture.schema).jobs WHERE kind = 'test.elsewhere' AND state <> 'available'"
                )
                #expect(left == 0)
                fixture.probe.releaseWaitingJobs()
                let job = try await fixture.waitUntilFinished(own)
                #expect(job.state == .completed)
                #expect(job.attempt == 1)
                #expect(job.errors.isEmpty)
                #expect(worker.statistics.leasesLost == 0)
            }
        }

        @Test func pruningSkipsAJobThatAnEnqueueUnderWayNamesAsItsInputSource() async throws {
            try await withFixture { fixture in
                let source = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("source", value: 21))
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(source).state == .completed)
                // An enqueue of a job whose input is the source's output, in a transaction still open...
                let opened = DispatchSemaphore(value: 0)
                let commit = DispatchSemaphore(value: 0)
                let relayQueue = try fixture.makeQueue()
                async let relay = runBlocking { () throws -> JobID in
                    try relayQueue.withTransaction { connection in
                        let id = try relayQueue.enqueue(
                            Relay.self, input: TestOutput(probe: "", label: "", value: 0, attempt: 0),
                            options: DurableJobOptions(inputFrom: source), in: connection)
                        opened.signal()
                        commit.wait()
                        return id
                    }
                }
                try await runBlocking { opened.wait() }
                // ...while another process prunes everything finished. (The enqueue commits after the prune, or
                // after two seconds if the prune waits for it: it must not, but the test would then hang.)
                let late = Task {
                    try await Task.sleep(for: .seconds(2))
                    commit.signal()
                }
                let pruned = try await fixture.queue.prune(finishedBefore: .zero)
                commit.signal()
                late.cancel()
                let relayID = try await relay
                #expect(pruned == 0)
                let result = try await fixture.result(of: relayID, as: Relay.self)
                #expect(result.value == 42)
                #expect(result.label == "source>relay")
            }
        }

        @Test func pruningWorksThroughManyJobsInBatchesAndKeepsThoseAnUnfinishedJobDependsOn() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                let retry = String(decoding: try JSONEncoder().encode(DurableRetryPolicy.never), as: UTF8.self)
                try await fixture.sql(
                    """
                    INSERT INTO \(fixture.schema).jobs (kind, state, retry, finished_at)
                    SELECT 'test.old', 'completed', $1::jsonb, now() - interval '1 day' FROM generate_series(1, 2500)
                    """, [retry])
                let kept = try await fixture.count("SELECT min(id) FROM \(fixture.schema).jobs")
                let dependent = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("later"),
                    options: DurableJobOptions(
                        runAt: Date().addingTimeInterval(3_600), dependencies: [JobID(rawValue: Int64(kept))]))
                #expect(try await fixture.queue.prune(finishedBefore: .seconds(60)) == 2_499)
                #expect(try await fixture.queue.job(JobID(rawValue: Int64(kept))).state == .completed)
                #expect(try await fixture.queue.job(dependent).state == .available)
            }
        }
    }
#endif
