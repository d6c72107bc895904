#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Outcomes the database refuses, and errors inside the completing transaction: nothing is left running for
    /// the reaper, and no work that succeeded runs again.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct OutcomeRecordingTests {

        /// One attempt, so that a failure is final at once.
        static let once = DurableJobOptions(retry: .never)

        @Test func anOutputTheDatabaseRefusesIsRecordedAsAFailedAttemptWithTheDatabasesReason() async throws {
            try await withFixture { fixture in
                var input = fixture.input("nul")
                input.outputHasNUL = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.once)
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.attempt == 1)
                // The real error, not a lease that expired after the row was left running.
                #expect(job.errors.count == 1)
                #expect(job.errors.first?.contains("could not be stored") == true, "\(job.errors)")
                #expect(job.errors.first?.contains("22P05") == true, "\(job.errors)")
                #expect(!job.errors.contains { $0.contains("expired") })
                try await eventually("the worker to count the failure") { worker.statistics.failed == 1 }
                #expect(worker.statistics.leasesLost == 0)
                #expect(worker.runningJobs.isEmpty)
            }
        }

        @Test func anOutputOverTheSizeLimitFailsTheAttemptWithAClearError() async throws {
            try await withFixture { fixture in
                var input = fixture.input("huge")
                input.outputPadding = 64 << 20
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.once)
                try fixture.startWorker()
                // Encoding 64 MiB in a debug build, beside the other suites, took more than the usual 20 s guard once.
                let job = try await withHangTimeout("\(id) to finish", timeout: .seconds(120)) {
                    [queue = fixture.queue] in
                    try await queue.waitUntilFinished(id)
                }
                #expect(job.state == .failed)
                #expect(job.errors.count == 1)
                #expect(job.errors.first?.contains("more than the \(64 << 20) a job may store") == true)
            }
        }

        @Test func aTransientErrorInTheCompletionHookRetriesTheCompletionInsteadOfFailingTheAttempt() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                var input = fixture.input("conflicted")
                input.effectsTable = table
                input.hookTransientFailures = 2
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.once)
                let worker = try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                #expect(job.attempt == 1)
                #expect(job.errors.isEmpty)
                // The work ran once; its completion was tried three times and committed once.
                #expect(fixture.probe.events(.started).count == 1)
                #expect(fixture.probe.events(.completing).count == 3)
                #expect(try await fixture.count("SELECT count(*) FROM \(table)") == 1)
                try await eventually("the worker to count the completion") { worker.statistics.completed == 1 }
                #expect(worker.statistics.failed == 0)
            }
        }

        @Test func aHookThatSwallowsAStatementErrorFailsTheAttemptAndCommitsNothing() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                var input = fixture.input("swallowed")
                input.effectsTable = table
                input.hookSwallowsError = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.once)
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                // Not counted completed while the server rolled the completion back.
                #expect(job.state == .failed)
                #expect(job.errors.count == 1)
                #expect(job.errors.first?.contains("25P02") == true, "\(job.errors)")
                #expect(try await fixture.count("SELECT count(*) FROM \(table)") == 0)
            }
        }

        @Test func aCompletionHookThatThrowsItsOwnErrorFailsTheAttemptWithThatError() async throws {
            try await withFixture { fixture in
                var input = fixture.input("effects into a missing table")
                input.effectsTable = "\(fixture.schema).no_such_table"
                let id = try await fixture.queue.enqueue(TestJob.self, input: input, options: Self.once)
                try fixture.startWorker()
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .failed)
                #expect(job.errors.first?.contains("42P01") == true, "\(job.errors)")
            }
        }
    }
#endif
