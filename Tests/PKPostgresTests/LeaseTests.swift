#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Leases, fencing and the reaper.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct LeaseTests {

        @Test func aWorkerThatLosesALeaseCancelsItsProcedureAndDiscardsItsOutcome() async throws {
            try await withFixture { fixture in
                var input = fixture.input("taken")
                input.runsUntilCancelled = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("taken") }
                try await fixture.stealLease(of: id)
                try await eventually("the worker to give the job up") { worker.statistics.leasesLost == 1 }
                #expect(fixture.probe.events(.sawCancellation).map(\.attempt) == [1])
                #expect(fixture.probe.events(.completing).isEmpty)
                #expect(worker.statistics.completed == 0)
                #expect(worker.statistics.cancelled == 0)
                #expect(worker.statistics.failed == 0)
                let job = try await fixture.queue.job(id)
                #expect(job.state != .completed)
                #expect(job.errors.isEmpty || job.errors.allSatisfy { $0.contains("expired") })
                // Nobody renews the lease now: it expires, the reaper requeues the job, and it runs again.
                fixture.probe.releaseWaitingJobs()
                let finished = try await fixture.waitUntilFinished(id)
                #expect(finished.state == .completed)
                #expect(finished.attempt == 2)
                #expect(finished.errors.count == 1)
                #expect(finished.errors.first?.contains("expired during attempt 1") == true)
                #expect(fixture.probe.events(.completing).map(\.attempt) == [2])
            }
        }

        /// Inserts a job that a crashed worker left running, its lease expired (by default with the input of a
        /// ``TestJob`` labelled "abandoned").
        static func insertAbandonedJob(
            _ fixture: TestFixture, attempt: Int, maxAttempts: Int, cancelRequested: Bool, input: TestInput? = nil
        ) async throws -> JobID {
            try await fixture.queue.migrate()
            let input = try String(
                decoding: JSONEncoder().encode(input ?? fixture.input("abandoned")), as: UTF8.self)
            let retry = try String(
                decoding: JSONEncoder().encode(DurableRetryPolicy(maxAttempts: maxAttempts, wait: .immediate)),
                as: UTF8.self)
            let inserted = try await fixture.sql(
                """
                INSERT INTO \(fixture.schema).jobs (kind, state, input, retry, attempt, max_attempts, lease_owner,
                    lease_token, lease_expires_at, started_at, cancel_requested)
                VALUES ($1, 'running', $2::jsonb, $3::jsonb, $4::integer, $5::integer, 'crashed-worker', 1,
                    now() - interval '1 second', now() - interval '10 seconds', $6::boolean)
                RETURNING id
                """,
                [TestJob.kind, input, retry, String(attempt), String(maxAttempts), cancelRequested ? "true" : "false"])
            return JobID(rawValue: try #require(inserted.rows.first).int64("id"))
        }

        @Test func aJobWhoseWorkerStoppedHeartbeatingIsRequeuedByTheReaperAndCompleted() async throws {
            try await withFixture { fixture in
                let id = try await Self.insertAbandonedJob(fixture, attempt: 1, maxAttempts: 3, cancelRequested: false)
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                #expect(job.attempt == 2)
                #expect(job.errors == ["the lease of crashed-worker expired during attempt 1"])
                #expect(fixture.probe.events(.started).map(\.attempt) == [2])
                try await eventually("the reaper to count the job") { worker.statistics.reaped == 1 }
            }
        }

        @Test func anAbandonedJobOnItsLastAttemptFailsAndCancelsItsDependents() async throws {
            try await withFixture { fixture in
                let id = try await Self.insertAbandonedJob(fixture, attempt: 3, maxAttempts: 3, cancelRequested: false)
                let dependent = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("dependent"), options: DurableJobOptions(dependencies: [id]))
                #expect(try await fixture.queue.job(dependent).state == .blocked)
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 3)
                #expect(job.errors == ["the lease of crashed-worker expired during attempt 3"])
                #expect(try await fixture.waitUntilFinished(dependent).state == .cancelled)
                #expect(fixture.probe.events.isEmpty)
            }
        }

        @Test func anAbandonedJobWhoseCancellationWasRequestedIsCancelled() async throws {
            try await withFixture { fixture in
                let id = try await Self.insertAbandonedJob(fixture, attempt: 1, maxAttempts: 3, cancelRequested: true)
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .cancelled)
                #expect(fixture.probe.events.isEmpty)
            }
        }

        @Test func aRunningJobsLeaseIsRenewedWhileItRuns() async throws {
            try await withFixture { fixture in
                var input = fixture.input("renewed")
                input.runsUntilCancelled = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("renewed") }
                let statement = """
                    SELECT extract(epoch FROM lease_expires_at)::float8 AS expires, lease_owner
                    FROM \(fixture.schema).jobs WHERE id = $1::bigint
                    """
                let first = try #require(try await fixture.sql(statement, [String(id.rawValue)]).rows.first)
                #expect(first["lease_owner"] == worker.name)
                let initial = try #require(first["expires"].flatMap(Double.init))
                try await eventually("the lease to be renewed") {
                    let row = try await fixture.sql(statement, [String(id.rawValue)]).rows.first
                    return (row?["expires"].flatMap(Double.init) ?? 0) > initial
                }
                #expect(try await fixture.queue.job(id).state == .running)
                #expect(worker.runningJobs == [id])
            }
        }
    }
#endif
