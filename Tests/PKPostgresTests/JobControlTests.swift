#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// What a running job may ask of its worker (``DurableJobControl``): snooze without spending an attempt,
    /// discard itself for good, or cancel itself.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct JobControlTests {

        @Test func aSnoozedJobRunsAgainLaterWithoutSpendingAnAttempt() async throws {
            try await withFixture { fixture in
                var input = fixture.input("sleepy")
                input.snoozingRuns = 3
                input.snoozeMilliseconds = 20
                // One attempt allowed: three snoozes must not spend it.
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never))
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                #expect(job.attempt == 1)
                #expect(job.errors.isEmpty)
                #expect(fixture.probe.startedLabels == Array(repeating: "sleepy", count: 4))
                #expect(fixture.probe.events(.started).map(\.attempt) == [1, 1, 1, 1])
                #expect(try await fixture.queue.attempts(of: id).map(\.outcome) == [.completed])
                // The worker counts an outcome once it is recorded: a moment after the job's row shows it.
                try await eventually("the worker to count the snoozes") { worker.statistics.snoozed == 3 }
            }
        }

        @Test func aSnoozeLongerThanThePollWaitsScheduledUntilItsTime() async throws {
            try await withFixture { fixture in
                var input = fixture.input("later")
                input.snoozingRuns = 1
                input.snoozeMilliseconds = 60_000
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                try fixture.startWorker()
                // The probe first, then the row: read the other way round, a row read before the claim (available)
                // with a start seen after it passed for a snooze, and the checks below then read the running job
                // (attempt 1, due at its enqueue), as a loaded CI run did. Once started, the job is running until
                // the snooze is recorded, so `available` after the start means snoozed.
                try await eventually("the job to snooze") {
                    guard fixture.probe.hasStarted("later") else { return false }
                    return try await fixture.queue.job(id).state == .available
                }
                let job = try await fixture.queue.job(id)
                #expect(job.errors.isEmpty)
                #expect(job.runAt > Date().addingTimeInterval(50))
                #expect(job.attempt == 0)
                #expect(
                    try await fixture.count(
                        "SELECT count(*) FROM \(fixture.schema).jobs WHERE state = 'scheduled'") == 1)
            }
        }

        @Test func aJobThatSnoozesPastTheLimitFailsForGood() async throws {
            try await withFixture { fixture in
                var input = fixture.input("restless")
                input.snoozingRuns = 5
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                // As if it had snoozed all but once already.
                _ = try await fixture.sql(
                    "UPDATE \(fixture.schema).jobs SET snoozes = $1::integer WHERE id = $2::bigint",
                    [String(DurableJobControl.maximumSnoozes - 1), String(id.rawValue)])
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(fixture.probe.startedLabels.count == 2)
                #expect(job.errors == ["attempt 1: snoozed more than \(DurableJobControl.maximumSnoozes) times"])
            }
        }

        @Test func aDiscardedJobFailsAtOnceWhateverAttemptsRemain() async throws {
            try await withFixture { fixture in
                var input = fixture.input("hopeless")
                input.control = "discard"
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)  // 5 attempts allowed
                let dependent = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("after"), options: DurableJobOptions(dependencies: [id]))
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 1)
                #expect(job.errors == ["attempt 1: discarded: the input can never succeed"])
                #expect(try await fixture.waitUntilFinished(dependent).state == .cancelled)
            }
        }

        @Test func aJobThatCancelsItselfIsRecordedCancelledWithItsReason() async throws {
            try await withFixture { fixture in
                var input = fixture.input("quitter")
                input.control = "cancel"
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .cancelled)
                #expect(job.errors == ["cancelled by the job: nothing left to do"])
                // The worker counts an outcome once it is recorded: a moment after the job's row shows it.
                try await eventually("the worker to count the cancellation") { worker.statistics.cancelled == 1 }
                #expect(try await fixture.queue.attempts(of: id).map(\.outcome) == [.cancelled])
            }
        }
    }
#endif
