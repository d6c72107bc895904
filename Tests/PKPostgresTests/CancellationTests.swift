#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Cancelling running jobs, and giving jobs back at shutdown.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct CancellationTests {

        /// The input of a job that runs until it is cancelled.
        static func endless(_ fixture: TestFixture, _ label: String) -> TestInput {
            var input = fixture.input(label)
            input.runsUntilCancelled = true
            return input
        }

        @Test func cancellingARunningJobCancelsItsProcedureAndRecordsItCancelled() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: Self.endless(fixture, "long"))
                let child = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("child"), options: DurableJobOptions(dependencies: [id]))
                let grandchild = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("grandchild"), options: DurableJobOptions(dependencies: [child]))
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("long") }
                #expect(try await fixture.queue.job(id).state == .running)
                let state = try await fixture.queue.cancel(id)
                #expect(state == .running || state == .cancelled)
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .cancelled)
                #expect(job.errors == ["cancelled by request"])
                #expect(job.isCancelRequested)
                #expect(fixture.probe.events(.sawCancellation).map(\.label) == ["long"])
                #expect(fixture.probe.events(.completing).isEmpty)
                #expect(try await fixture.waitUntilFinished(child).state == .cancelled)
                #expect(try await fixture.waitUntilFinished(grandchild).state == .cancelled)
                #expect(fixture.probe.startedLabels == ["long"])
                await #expect(throws: DurableError.jobCancelled(id, errors: job.errors)) {
                    try await fixture.result(of: id, as: TestJob.self)
                }
                try await eventually("the worker to count the cancellation") { worker.statistics.cancelled == 1 }
                #expect(worker.runningJobs.isEmpty)
            }
        }

        @Test func aJobCancelledInTheDatabaseWithoutANotificationIsCancelledByTheHeartbeat() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: Self.endless(fixture, "quiet"))
                try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("quiet") }
                try await fixture.sql(
                    "UPDATE \(fixture.schema).jobs SET cancel_requested = true WHERE id = $1::bigint",
                    [String(id.rawValue)])
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .cancelled)
                #expect(fixture.probe.events(.sawCancellation).count == 1)
            }
        }

        @Test func aWorkerShutDownWithAShortGracePeriodGivesItsJobBackWithoutSpendingTheAttempt() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: Self.endless(fixture, "interrupted"))
                let first = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("interrupted") }
                try await fixture.stop(first, gracePeriod: .milliseconds(200))
                let released = try await fixture.queue.job(id)
                #expect(released.state == .available)
                #expect(released.attempt == 0)
                #expect(released.errors.isEmpty)
                #expect(released.leaseOwner == nil)
                #expect(first.statistics.released == 1)
                #expect(fixture.probe.events(.sawCancellation).map(\.attempt) == [1])
                // Another worker runs it again, as its first attempt.
                fixture.probe.releaseWaitingJobs()
                try fixture.startWorker()
                let output = try await fixture.result(of: id, as: TestJob.self)
                #expect(output.attempt == 1)
                #expect(try await fixture.queue.job(id).attempt == 1)
            }
        }

        @Test func aWorkerShutDownWithALongGracePeriodLetsItsRunningJobFinish() async throws {
            try await withFixture { fixture in
                var input = fixture.input("finishing")
                input.sleepMilliseconds = 300
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("finishing") }
                try await fixture.stop(worker, gracePeriod: .seconds(20))
                let job = try await fixture.queue.job(id)
                #expect(job.state == .completed)
                #expect(job.attempt == 1)
                #expect(worker.statistics.completed == 1)
                #expect(worker.statistics.released == 0)
                // A stopped worker claims nothing more.
                let later = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("later"))
                #expect(try await fixture.queue.job(later).state == .available)
                #expect(worker.runningJobs.isEmpty)
            }
        }

        @Test func aCancellationRequestedWhileAWorkerShutsDownIsRecordedCancelled() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: Self.endless(fixture, "both"))
                let dependent = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("dependent"), options: DurableJobOptions(dependencies: [id]))
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("both") }
                try await fixture.sql(
                    "UPDATE \(fixture.schema).jobs SET cancel_requested = true WHERE id = $1::bigint",
                    [String(id.rawValue)])
                try await fixture.stop(worker, gracePeriod: .zero)
                let job = try await fixture.queue.job(id)
                #expect(job.state == .cancelled)
                #expect(try await fixture.queue.job(dependent).state == .cancelled)
            }
        }

        @Test func aWorkerThatNeverStartedStopsAtOnce() async throws {
            try await withFixture { fixture in
                let worker = try fixture.makeWorker()
                try await fixture.stop(worker)
                // Starting it afterwards does nothing.
                try worker.start()
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("unclaimed"))
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await fixture.queue.job(id).state == .available)
                #expect(worker.statistics.claimed == 0)
            }
        }

        @Test func cancellingTheWaitForAResultLeavesTheJobAlone() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("awaited"))
                let waiting = Task { [queue = fixture.queue] in try await queue.result(of: id, as: TestJob.self) }
                waiting.cancel()
                await #expect(throws: CancellationError.self) { try await waiting.value }
                #expect(try await fixture.queue.job(id).state == .available)
            }
        }
    }
#endif
