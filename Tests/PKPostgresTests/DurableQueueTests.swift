#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Enqueueing, scheduling, registration and the queue's errors.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct DurableQueueTests {

        @Test func anEnqueuedJobIsRunByAWorkerAndItsTypedOutputReturned() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("answer", value: 42))
                try fixture.startWorker()
                let output = try await fixture.result(of: id, as: TestJob.self)
                #expect(output == TestOutput(probe: fixture.probe.name, label: "answer", value: 42, attempt: 1))
                let job = try await fixture.queue.job(id)
                #expect(job.state == .completed)
                #expect(job.kind == TestJob.kind)
                #expect(job.attempt == 1)
                #expect(job.errors.isEmpty)
                #expect(job.leaseOwner == nil)
                #expect(job.finishedAt != nil)
                #expect(fixture.probe.startedLabels == ["answer"])
            }
        }

        @Test func aJobWaitsInAvailableUntilAWorkerStarts() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("waiting"))
                let job = try await fixture.queue.job(id)
                #expect(job.state == .available)
                #expect(job.attempt == 0)
                #expect(job.maxAttempts == DurableRetryPolicy.standard.maxAttempts)
                #expect(job.pendingDependencies == 0)
                #expect(!job.isCancelRequested)
            }
        }

        @Test func aTakenUniqueKeyReturnsTheExistingJobAndStoresNothing() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(uniqueKey: "report-2024-06")
                let first = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("first"), options: options)
                let second = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("second"), options: options)
                #expect(first == second)
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == 1)
                let other = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("other"), options: DurableJobOptions(uniqueKey: "other"))
                #expect(other != first)
                try fixture.startWorker()
                #expect(try await fixture.result(of: first, as: TestJob.self).label == "first")
            }
        }

        @Test func aPrunedJobFreesItsUniqueKey() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(uniqueKey: "once")
                let first = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("first"), options: options)
                #expect(try await fixture.queue.cancel(first) == .cancelled)
                #expect(try await fixture.queue.prune(finishedBefore: .zero) == 1)
                await #expect(throws: DurableError.jobNotFound(first)) { try await fixture.queue.job(first) }
                let second = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("second"), options: options)
                #expect(second != first)
            }
        }

        @Test func aJobIsNotClaimedBeforeItsRunAt() async throws {
            try await withFixture { fixture in
                let runAt = Date().addingTimeInterval(2)
                let later = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("later"), options: DurableJobOptions(runAt: runAt))
                let now = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("now"))
                try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(now)
                // The worker has claimed what it could; unless run_at has come meanwhile (a slow machine), the
                // delayed job is still waiting: `scheduled` in the table (out of the claims' index), `available`
                // to users.
                let early = try #require(
                    try await fixture.sql(
                        "SELECT state, now() < run_at AS early FROM \(fixture.schema).jobs WHERE id = $1::bigint",
                        [String(later.rawValue)]
                    ).rows.first)
                if try early.bool("early") {
                    #expect(early["state"] == "scheduled")
                    #expect(try await fixture.queue.job(later).state == .available)
                }
                let finished = try await fixture.waitUntilFinished(later)
                #expect(finished.state == .completed)
                let startedOnTime = try #require(
                    try await fixture.sql(
                        "SELECT started_at >= run_at AS on_time FROM \(fixture.schema).jobs WHERE id = $1::bigint",
                        [String(later.rawValue)]
                    ).rows.first)
                #expect(try startedOnTime.bool("on_time"))
                #expect(fixture.probe.startedLabels.sorted() == ["later", "now"])
            }
        }

        @Test func higherPriorityJobsAreClaimedFirst() async throws {
            try await withFixture { fixture in
                let priorities: [Int32] = [0, 5, -3, 10, 5, 1, 7]
                for (index, priority) in priorities.enumerated() {
                    _ = try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input("p\(priority)-\(index)"),
                        options: DurableJobOptions(priority: priority))
                }
                try fixture.startWorker(concurrency: 1)
                try await eventually("every job to run") { fixture.probe.startedLabels.count == priorities.count }
                // Equal priorities run in enqueueing order.
                #expect(
                    fixture.probe.startedLabels == ["p10-3", "p7-6", "p5-1", "p5-4", "p1-5", "p0-0", "p-3-2"])
            }
        }

        @Test func aWorkerClaimsOnlyWhatItsFreeSlotsCanStartSoWaitingJobsSpendNoAttempt() async throws {
            try await withFixture { fixture in
                // Two jobs that hold both slots, then lower priorities first in the table (and by id).
                var blockers: [JobID] = []
                for index in 0..<2 {
                    var input = fixture.input("blocker \(index)")
                    input.runsUntilCancelled = true
                    blockers.append(
                        try await fixture.queue.enqueue(
                            TestJob.self, input: input, options: DurableJobOptions(priority: 100)))
                }
                var waiting: [JobID] = []
                for priority in 1...4 {
                    waiting.append(
                        try await fixture.queue.enqueue(
                            TestJob.self, input: fixture.input("p\(priority)"),
                            options: DurableJobOptions(priority: Int32(priority))))
                }
                // With statistics the planner joins by hashing, which returns the claimed rows in table order.
                try await fixture.sql("ANALYZE \(fixture.schema).jobs")
                let worker = try fixture.startWorker(concurrency: 2)
                try await eventually("both blockers to start") { fixture.probe.startedLabels.count == 2 }
                // Several polls later the worker still holds only the two it runs: the rest are neither leased nor
                // charged an attempt, and any other worker could take them.
                try await Task.sleep(for: TestDatabase.pollInterval * 5)
                #expect(worker.runningJobs == blockers.sorted())
                for id in waiting {
                    let job = try await fixture.queue.job(id)
                    #expect(job.state == .available)
                    #expect(job.attempt == 0)
                    #expect(job.leaseOwner == nil)
                }
                for blocker in blockers {
                    _ = try await fixture.queue.cancel(blocker)
                    _ = try await fixture.waitUntilFinished(blocker)
                }
                try await eventually("every job to run") { fixture.probe.startedLabels.count == 6 }
                // Each claim takes the best due jobs first.
                #expect(Array(fixture.probe.startedLabels.dropFirst(2)) == ["p4", "p3", "p2", "p1"])
            }
        }

        @Test func aJobEnqueuedInATransactionThatThrowsIsNeverStored() async throws {
            struct Rollback: Error { let id: JobID }
            try await withFixture { fixture in
                let queue = fixture.queue
                let input = fixture.input("rolled back")
                let error = await #expect(throws: Rollback.self) {
                    try await queue.withTransaction { connection in
                        throw Rollback(id: try queue.enqueue(TestJob.self, input: input, in: connection))
                    }
                }
                let id = try #require(error?.id)
                await #expect(throws: DurableError.jobNotFound(id)) { try await queue.job(id) }
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == 0)
            }
        }

        @Test func aJobEnqueuedInATransactionCommitsWithTheCallersChanges() async throws {
            try await withFixture { fixture in
                let queue = fixture.queue
                let input = fixture.input("committed")
                let table = "\(fixture.schema).orders"
                let id = try await queue.withTransaction { connection -> JobID in
                    try connection.execute("CREATE TABLE \(table) (id integer)")
                    try connection.execute("INSERT INTO \(table) VALUES (1)")
                    return try queue.enqueue(TestJob.self, input: input, in: connection)
                }
                #expect(try await queue.job(id).state == .available)
                #expect(try await fixture.count("SELECT count(*) FROM \(table)") == 1)
                try fixture.startWorker()
                #expect(try await fixture.result(of: id, as: TestJob.self).label == "committed")
            }
        }

        @Test func aSynchronousQueueCallInsideWithTransactionThrowsInsteadOfDeadlocking() async throws {
            try await withFixture { fixture in
                let queue = fixture.queue
                let input = fixture.input("nested")
                try await runBlocking {
                    let error = #expect(throws: DurableError.self) {
                        try queue.withTransaction { _ in try queue.enqueue(TestJob.self, input: input) }
                    }
                    guard case .invalidOption = error else {
                        Issue.record("expected invalidOption, got \(String(describing: error))")
                        return
                    }
                }
            }
        }

        @Test func cancellingAQueuedJobCancelsItAndItsResultThrowsJobCancelled() async throws {
            try await withFixture { fixture in
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("unwanted"))
                #expect(try await fixture.queue.cancel(id) == .cancelled)
                let job = try await fixture.queue.job(id)
                #expect(job.state == .cancelled)
                #expect(job.errors == ["cancelled by request"])
                await #expect(throws: DurableError.jobCancelled(id, errors: ["cancelled by request"])) {
                    try await fixture.result(of: id, as: TestJob.self)
                }
                // Cancelling again changes nothing; a worker never runs it.
                #expect(try await fixture.queue.cancel(id) == .cancelled)
                let sentinel = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("sentinel"))
                try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(sentinel)
                #expect(fixture.probe.startedLabels == ["sentinel"])
            }
        }

        @Test func cancellingAnUnknownJobThrowsJobNotFound() async throws {
            try await withFixture { fixture in
                let missing = JobID(rawValue: 987_654_321)
                await #expect(throws: DurableError.jobNotFound(missing)) { try await fixture.queue.cancel(missing) }
                await #expect(throws: DurableError.jobNotFound(missing)) { try await fixture.queue.job(missing) }
                await #expect(throws: DurableError.jobNotFound(missing)) {
                    try await fixture.result(of: missing, as: TestJob.self)
                }
            }
        }

        @Test(arguments: [
            "", "Upper", "1starts_with_a_digit", "has-dash", "has space", "semi;colon", "quote\"d",
            String(repeating: "a", count: 41),
        ])
        func anInvalidSchemaNameIsRefused(schema: String) {
            #expect(throws: DurableError.invalidSchemaName(schema)) {
                try DurableQueue(connectionString: TestDatabase.url, schema: schema)
            }
        }

        @Test(arguments: ["a", "procedurekit", "jobs_2", String(repeating: "z", count: 40)])
        func aPlainLowerCaseSchemaNameIsAccepted(schema: String) throws {
            #expect(try DurableQueue(connectionString: TestDatabase.url, schema: schema).schema == schema)
        }

        @Test(arguments: [
            DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 0)),
            DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: -1)),
            DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 1_000_001)),
            DurableJobOptions(uniqueKey: ""),
            DurableJobOptions(uniqueKey: String(repeating: "k", count: 1_001)),
            DurableJobOptions(exclusiveCategories: [""]),
            DurableJobOptions(runAt: Date(timeIntervalSince1970: .infinity)),
        ])
        func invalidOptionsAreRefusedBeforeAnythingIsStored(options: DurableJobOptions) async throws {
            try await withFixture { fixture in
                let error = await #expect(throws: DurableError.self) {
                    try await fixture.queue.enqueue(TestJob.self, input: fixture.input("bad"), options: options)
                }
                guard case .invalidOption = error else {
                    Issue.record("expected invalidOption, got \(String(describing: error))")
                    return
                }
                let graph = DurableGraph()
                graph.add(TestJob.self, input: fixture.input("bad"), options: options)
                await #expect(throws: DurableError.self) { try await fixture.queue.enqueue(graph) }
            }
        }

        @Test func anUnknownDependencyIsRefused() async throws {
            try await withFixture { fixture in
                let known = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("known"))
                let missing = JobID(rawValue: known.rawValue + 1_000)
                await #expect(throws: DurableError.unknownDependency(missing)) {
                    try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input("orphan"),
                        options: DurableJobOptions(dependencies: [known, missing]))
                }
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == 1)
            }
        }

        @Test func registeringTwoTypesUnderOneKindThrowsDuplicateKind() async throws {
            try await withFixture { fixture in
                #expect(throws: DurableError.duplicateKind(TestJob.kind)) { try fixture.queue.register(TestJob.self) }
                #expect(throws: DurableError.duplicateKind(TestJob.kind)) {
                    try fixture.queue.register(MismatchedJob.self)
                }
                #expect(fixture.queue.registeredKinds == [TestJob.kind, Relay.kind].sorted())
            }
        }

        @Test func aWorkerOfAQueueWithoutRegisteredKindsRefusesToStart() async throws {
            try await withFixture { fixture in
                let worker = try fixture.makeWorker(queue: try fixture.makeQueue())
                let error = #expect(throws: DurableError.self) { try worker.start() }
                guard case .invalidOption = error else {
                    Issue.record("expected invalidOption, got \(String(describing: error))")
                    return
                }
            }
        }

        @Test(arguments: [
            (0, Duration.seconds(2), Duration.milliseconds(100)), (1, .milliseconds(299), .seconds(1)),
            (1, .seconds(2), .milliseconds(9)), (10_001, .seconds(2), .seconds(1)), (1, .seconds(86_401), .seconds(1)),
            (1, .seconds(2), .seconds(61)),
        ])
        func aWorkerWithOutOfRangeSettingsIsRefused(concurrency: Int, lease: Duration, poll: Duration) throws {
            let queue = try DurableQueue(connectionString: TestDatabase.url, schema: TestDatabase.uniqueName())
            let error = #expect(throws: DurableError.self) {
                try DurableWorker(queue: queue, concurrency: concurrency, leaseDuration: lease, pollInterval: poll)
            }
            guard case .invalidOption = error else {
                Issue.record("expected invalidOption, got \(String(describing: error))")
                return
            }
        }

        @Test func queuesMigratingOneFreshSchemaAtOnceAllSucceed() async throws {
            try await withFixture { fixture in
                let schema = fixture.schema
                try await withThrowingTaskGroup(of: Void.self) { group in
                    for _ in 0..<8 {
                        group.addTask {
                            let queue = try DurableQueue(connectionString: TestDatabase.url, schema: schema)
                            try await withHangTimeout("a migration") { try await queue.migrate() }
                        }
                    }
                    try await group.waitForAll()
                }
                let versions = try await fixture.count("SELECT count(*) FROM \(schema).schema_versions")
                #expect(versions == DurableQueue.schemaVersion)
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("after migrating"))
                #expect(try await fixture.queue.job(id).state == .available)
            }
        }
    }
#endif
