#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Real faults from the real server, each injected at one statement of a worker's (``FaultInjector``): a
    /// connection the server terminates mid-statement, a server restarted mid-statement, a client holding a running
    /// job's row lock. Whatever the fault, each job completes exactly once (one effect row, written by its completion
    /// hook in the completing transaction), with the attempts and the error history the fault calls for.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct FaultInjectionTests {

        // MARK: - A connection terminated mid-statement

        @Test func aClaimCutOffByTheServerIsRolledBackWholeAndSpendsNoAttempt() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.terminate, at: .claim)
                // The claim takes the job's category before its final UPDATE, where the fault comes: a claim not
                // rolled back whole would leave the category held, and the job parked behind itself.
                let id = try await Self.enqueue(
                    "claimed", fixture, table: table,
                    options: DurableJobOptions(exclusiveCategories: ["claimed-\(fixture.schema)"]))
                let worker = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                #expect(fixture.probe.events(.started).map(\.attempt) == [1])
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).exclusive_categories") == 0)
                let statistics = try await Self.statistics(of: worker, completed: 1)
                #expect(statistics.claimed == 1)
                #expect(statistics.leasesLost == 0)
                #expect(statistics.failed == 0)
            }
        }

        @Test func aHeartbeatCutOffByTheServerRenewsOnANewConnectionBeforeTheLeaseEnds() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                // The first heartbeat that renews anything is cut off; the job runs a lease and a half, so it keeps
                // its lease only if a later heartbeat, on a new connection, renews it in time.
                try await faults.arm(.terminate, at: .heartbeat)
                let lease = TestDatabase.lease
                let id = try await Self.enqueue(
                    "renewed", fixture, table: table, sleepMilliseconds: Int(lease.components.seconds) * 1_500)
                let worker = try fixture.startWorker(lease: lease)
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                let statistics = try await Self.statistics(of: worker, completed: 1)
                #expect(statistics.leasesLost == 0)
                #expect(statistics.claimed == 1)
                #expect(fixture.probe.events(.started).map(\.attempt) == [1])
                #expect(fixture.probe.events(.sawCancellation).isEmpty)
            }
        }

        /// Cut off once, and three times in a row (each retry on a new connection, after a longer wait).
        @Test(arguments: [1, 3])
        func aCompletionCutOffByTheServerIsRetriedOnANewConnectionAndWritesItsEffectOnce(_ times: Int) async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.terminate, at: .completion, times: times)
                let id = try await Self.enqueue("completed", fixture, table: table)
                let worker = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == times)
                try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                let statistics = try await Self.statistics(of: worker, completed: 1)
                #expect(statistics.leasesLost == 0)
                #expect(statistics.failed == 0)
                #expect(fixture.probe.events(.started).map(\.attempt) == [1])
            }
        }

        @Test func aCompletionCutOffAtItsCommitAfterTheHookWroteItsEffectIsRetriedAndTheEffectKeptOnce() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                // At COMMIT, after complete_job and the hook's INSERT: the whole transaction is lost, effect included.
                try await faults.watchCommits(of: table)
                try await faults.arm(.terminate, at: .commit)
                let id = try await Self.enqueue("committed", fixture, table: table)
                let worker = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                // The hook ran twice (its first row went with the cut-off transaction); the procedure once.
                #expect(fixture.probe.events(.completing).map(\.attempt) == [1, 1])
                #expect(fixture.probe.events(.started).map(\.attempt) == [1])
                let statistics = try await Self.statistics(of: worker, completed: 1)
                #expect(statistics.leasesLost == 0)
                #expect(statistics.failed == 0)
            }
        }

        @Test func aFailureRecordCutOffByTheServerIsRetriedAndTheFailedAttemptRecordedOnce() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.terminate, at: .failure)
                let id = try await Self.enqueue(
                    "failing once", fixture, table: table, failingAttempts: 1,
                    options: DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 3, wait: .immediate)))
                let worker = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(
                    id, attempt: 2, errors: ["attempt 1: planned failure of failing once on attempt 1"], table: table,
                    fixture)
                #expect(fixture.probe.events(.started).map(\.attempt) == [1, 2])
                let statistics = try await Self.statistics(of: worker, completed: 1)
                #expect(statistics.failed == 1)
                #expect(statistics.claimed == 2)
                #expect(statistics.leasesLost == 0)
            }
        }

        @Test func aCancellationRecordCutOffByTheServerIsRetriedAndRecordedOnce() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.terminate, at: .cancellation)
                let id = try await Self.enqueue("cancelled", fixture, table: table, runsUntilCancelled: true)
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("cancelled") }
                #expect(try await fixture.queue.cancel(id) == .running)
                let job = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                #expect(job.state == .cancelled)
                #expect(job.attempt == 1)
                #expect(job.errors == ["cancelled by request"])
                #expect(fixture.probe.events(.sawCancellation).map(\.attempt) == [1])
                #expect(try await fixture.count("SELECT count(*) FROM \(table)") == 0)
                try await eventually("the worker to count the cancellation") { worker.statistics.cancelled >= 1 }
                let statistics = worker.statistics
                #expect(statistics.cancelled == 1)
                #expect(statistics.leasesLost == 0)
                #expect(statistics.failed == 0)
            }
        }

        @Test func aReleaseAtShutdownCutOffByTheServerIsRetriedAndSpendsNoAttempt() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.terminate, at: .release)
                let id = try await Self.enqueue("released", fixture, table: table, runsUntilCancelled: true)
                let first = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("released") }
                // Shut down at once: the job is cancelled and given back, and the release is cut off.
                try await fixture.stop(first)
                #expect(try await faults.fired() == 1)
                let given = try await fixture.queue.job(id)
                #expect(given.state == .available)
                #expect(given.attempt == 0)
                #expect(given.errors.isEmpty)
                #expect(first.statistics.released == 1)
                #expect(first.statistics.leasesLost == 0)
                fixture.probe.releaseWaitingJobs()
                let second = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                #expect(fixture.probe.events(.started).map(\.worker) == [first.name, second.name])
                #expect(fixture.probe.events(.started).map(\.attempt) == [1, 1])
                _ = try await Self.statistics(of: second, completed: 1)
            }
        }

        @Test func aReaperBatchCutOffByTheServerIsRolledBackAndTheNextCycleReapsTheJobOnce() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                var input = fixture.input("abandoned")
                input.effectsTable = table
                let id = try await LeaseTests.insertAbandonedJob(
                    fixture, attempt: 1, maxAttempts: 3, cancelRequested: false, input: input)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.terminate, at: .reaperBatch)
                let worker = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(
                    id, attempt: 2, errors: ["the lease of crashed-worker expired during attempt 1"], table: table,
                    fixture)
                #expect(fixture.probe.events(.started).map(\.attempt) == [2])
                let statistics = try await Self.statistics(of: worker, completed: 1)
                try await eventually("the reaper to count the job") { worker.statistics.reaped >= 1 }
                #expect(worker.statistics.reaped == 1)
                #expect(statistics.claimed == 1)
                #expect(statistics.leasesLost == 0)
            }
        }

        // MARK: - A server restarted mid-statement

        @Test(.enabled(if: RestartableServer.isAvailable, "a server of its own, restarted: not under ThreadSanitizer"))
        func aClaimCutOffByAServerRestartIsRolledBackAndSpendsNoAttempt() async throws {
            try await Self.restartTheServer(during: .claim, lease: TestDatabase.lease)
        }

        @Test(.enabled(if: RestartableServer.isAvailable, "a server of its own, restarted: not under ThreadSanitizer"))
        func aCompletionCutOffByAServerRestartIsRetriedAndWritesItsEffectOnce() async throws {
            // The stalled completion holds the job's row lock, so no heartbeat renews its lease meanwhile: a lease
            // that outlasts the stall and the restart keeps the reaper out of the race with the completion's retry.
            try await Self.restartTheServer(during: .completion, lease: .seconds(10))
        }

        // MARK: - A statement committed whose reply is lost

        @Test(
            .enabled(if: RestartableServer.isAvailable, "a server of its own, reconfigured: not under ThreadSanitizer"))
        func aCompletionCommittedWhoseReplyIsLostIsNotRecordedTwice() async throws {
            try await Self.withCommitRepliesHeldBack { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.holdCommitReply, at: .completion)
                let id = try await Self.enqueue("committed", fixture, table: table)
                let worker = try fixture.startWorker()
                // The completion is committed, its hook's effect with it, but its reply is held back: terminating
                // its connection now loses the reply, not the commit.
                try await Self.cutOffTheHeldCommitReply(fixture)
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                // The retry found the job completed and did not run the hook again.
                #expect(fixture.probe.events(.completing).map(\.attempt) == [1])
                #expect(fixture.probe.events(.started).map(\.attempt) == [1])
                try await eventually("the worker to have recorded the outcome") {
                    worker.statistics.completed + worker.statistics.leasesLost >= 1
                }
                let statistics = worker.statistics
                #expect(statistics.claimed == 1)
                #expect(statistics.failed == 0)
                // Found recorded by this very claim: counted completed, not a lost lease.
                #expect(statistics.completed == 1)
                #expect(statistics.leasesLost == 0)
            }
        }

        @Test(
            .enabled(if: RestartableServer.isAvailable, "a server of its own, reconfigured: not under ThreadSanitizer"))
        func aClaimCommittedWhoseReplyIsLostIsReapedAfterItsLeaseAndTheJobRunsOnce() async throws {
            try await Self.withCommitRepliesHeldBack { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let faults = try await FaultInjector.install(fixture)
                try await faults.arm(.holdCommitReply, at: .claim)
                let id = try await Self.enqueue("claimed", fixture, table: table)
                let worker = try fixture.startWorker()
                // The job is the worker's in the database, but the worker never learns it: nobody renews the lease,
                // and once it expires the reaper gives the job back, its attempt spent (a worker that crashed after
                // its claim looks the same).
                try await Self.cutOffTheHeldCommitReply(fixture)
                _ = try await fixture.waitUntilFinished(id)
                #expect(try await faults.fired() == 1)
                try await Self.expectCompletedOnce(
                    id, attempt: 2, errors: ["the lease of \(worker.name) expired during attempt 1"], table: table,
                    fixture)
                #expect(fixture.probe.events(.started).map(\.attempt) == [2])
                let statistics = try await Self.statistics(of: worker, completed: 1)
                try await eventually("the reaper to count the job") { worker.statistics.reaped >= 1 }
                #expect(worker.statistics.reaped == 1)
                #expect(statistics.claimed == 1)
                #expect(statistics.leasesLost == 0)
            }
        }

        /// Runs `body` with a fixture on a server of the test's own whose commits, when a transaction asks for
        /// synchronous replication (``FaultInjector/Fault/holdCommitReply``), wait for a standby that never comes.
        static func withCommitRepliesHeldBack(_ body: (TestFixture) async throws -> Void) async throws {
            try await withRestartableServer(port: 5442) { server in
                try await runBlocking {
                    let connection = try PostgresConnection(server.url)
                    defer { connection.close() }
                    try connection.execute("ALTER SYSTEM SET synchronous_standby_names = 'pk_no_such_standby'")
                    try connection.execute("SELECT pg_reload_conf()")
                }
                try await withFixture(url: server.url, body)
            }
        }

        /// Waits until a transaction's commit waits for the standby (`SyncRep`), committed but not answered, and
        /// terminates its connection: the client loses the reply, the commit stays.
        static func cutOffTheHeldCommitReply(_ fixture: TestFixture) async throws {
            try await eventually("a commit to wait for the standby") {
                try await fixture.count(
                    "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE wait_event = 'SyncRep'") > 0
            }
        }

        /// Stalls `statement` in a server of the test's own, restarts the server while it is stalled, and checks
        /// that the job still completes once, on attempt 1, with no error.
        static func restartTheServer(during statement: FaultInjector.Statement, lease: Duration) async throws {
            try await withRestartableServer(port: 5442) { server in
                try await withFixture(url: server.url) { fixture in
                    let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                    let faults = try await FaultInjector.install(fixture)
                    // Far longer than the restart takes: the restart, not the stall's end, ends the statement.
                    try await faults.arm(.stall(seconds: 60), at: statement)
                    let id = try await Self.enqueue("restarted", fixture, table: table)
                    let startedAt = try await Self.serverStartTime(fixture)
                    let worker = try fixture.startWorker(lease: lease)
                    try await eventually("\(statement) to stall") { try await faults.isStalled(statement) }
                    try await runBlocking { try server.restart() }
                    // The queue's own connection went with the server: calls fail until it is reopened.
                    try await eventually("the job to complete after the restart") {
                        (try? await fixture.queue.job(id))?.state == .completed
                    }
                    #expect(try await Self.serverStartTime(fixture) > startedAt, "the server restarted")
                    #expect(try await faults.fired() == 1)
                    try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                    #expect(fixture.probe.events(.started).map(\.attempt) == [1])
                    let statistics = try await Self.statistics(of: worker, completed: 1)
                    #expect(statistics.claimed == 1)
                    #expect(statistics.leasesLost == 0)
                    #expect(statistics.failed == 0)
                }
            }
        }

        // MARK: - A client holding a running job's row lock

        @Test(arguments: ["FOR SHARE", "FOR UPDATE"])
        func aRowLockAClientHoldsWithinALeaseIsSkippedByTheHeartbeatAndTheJobKeepsItsLease(_ lock: String)
            async throws
        {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let locked = try await Self.enqueue("locked", fixture, table: table, runsUntilCancelled: true)
                let free = try await Self.enqueue("free", fixture, table: table, runsUntilCancelled: true)
                let worker = try fixture.startWorker(concurrency: 2)
                try await eventually("both jobs to start") {
                    fixture.probe.hasStarted("locked") && fixture.probe.hasStarted("free")
                }
                // Locked just after a renewal: the lock then spans a heartbeat and ends well before the lease.
                let initial = try await Self.lease(of: locked, fixture)
                try await eventually("a renewal") { try await Self.lease(of: locked, fixture).renews(initial) }
                let client = try await ClientRowLock.take(lock, on: locked, fixture)
                let lockedLease = try await Self.lease(of: locked, fixture)
                let freeLease = try await Self.lease(of: free, fixture)
                // One statement renews both leases: a heartbeat that waited for the lock would renew neither.
                try await eventually("a heartbeat to renew the other job while the lock is held") {
                    try await Self.lease(of: free, fixture).renews(freeLease)
                }
                #expect(try await Self.lease(of: locked, fixture) == lockedLease, "the locked row was skipped")
                #expect(try await Self.statementsWaitingForALock(fixture) == 0)
                try await client.commit()
                try await eventually("the locked job's lease to be renewed once the lock is gone") {
                    try await Self.lease(of: locked, fixture).renews(lockedLease)
                }
                fixture.probe.releaseWaitingJobs()
                for id in [locked, free] {
                    _ = try await fixture.waitUntilFinished(id)
                    try await Self.expectCompletedOnce(id, attempt: 1, errors: [], table: table, fixture)
                }
                let statistics = try await Self.statistics(of: worker, completed: 2)
                #expect(statistics.leasesLost == 0)
                #expect(statistics.claimed == 2)
                #expect(fixture.probe.events(.sawCancellation).isEmpty)
            }
        }

        @Test(arguments: ["FOR SHARE", "FOR UPDATE"])
        func aRowLockAClientHoldsPastTheLeaseCostsOnlyThatJobsLeaseAndTheJobRunsAgainOnce(_ lock: String)
            async throws
        {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let locked = try await Self.enqueue("locked", fixture, table: table, runsUntilCancelled: true)
                let free = try await Self.enqueue("free", fixture, table: table, runsUntilCancelled: true)
                let worker = try fixture.startWorker(concurrency: 2)
                try await eventually("both jobs to start") {
                    fixture.probe.hasStarted("locked") && fixture.probe.hasStarted("free")
                }
                let client = try await ClientRowLock.take(lock, on: locked, fixture)
                let freeLease = try await Self.lease(of: free, fixture)
                // One statement renews both leases: a heartbeat that waited for the lock would renew neither.
                try await eventually("a heartbeat to renew the other job while the lock is held") {
                    try await Self.lease(of: free, fixture).renews(freeLease)
                }
                // Nobody can renew a row locked past the lease: the worker gives the job up when its lease ends by
                // its own clock (another worker may take the job once the lock is gone), and stops its procedure.
                try await eventually("the worker to give the locked job up") {
                    fixture.probe.events(.sawCancellation).map(\.label) == ["locked"]
                }
                try await eventually("the lease loss to be counted") { worker.statistics.leasesLost == 1 }
                // The lock is held a lease longer, over two leases in all, so that the database's lease has expired
                // too: time must pass for the reaper to meet the locked, expired row (it runs every third of a lease).
                try await Task.sleep(for: TestDatabase.lease)
                // The reaper skipped the locked row instead of waiting for it; so did the heartbeat.
                #expect(try await Self.statementsWaitingForALock(fixture) == 0)
                let row = try await fixture.sql(
                    "SELECT state, lease_owner FROM \(fixture.schema).jobs WHERE id = $1::bigint",
                    [String(locked.rawValue)]
                ).rows.first
                #expect(row?["state"] == "running")
                #expect(row?["lease_owner"] == worker.name)
                try await client.commit()
                // Free now: the reaper requeues it and it runs again (released, both jobs finish at once).
                try await eventually("the locked job to run again") {
                    fixture.probe.events(.started).contains { $0.label == "locked" && $0.attempt == 2 }
                }
                fixture.probe.releaseWaitingJobs()
                _ = try await fixture.waitUntilFinished(locked)
                _ = try await fixture.waitUntilFinished(free)
                try await Self.expectCompletedOnce(
                    locked, attempt: 2, errors: ["the lease of \(worker.name) expired during attempt 1"], table: table,
                    fixture)
                try await Self.expectCompletedOnce(free, attempt: 1, errors: [], table: table, fixture)
                #expect(fixture.probe.events(.completing).map(\.label).sorted() == ["free", "locked"])
                // The other job ran through the whole lock, longer than a lease, and kept its lease all along.
                #expect(fixture.probe.events(.sawCancellation).map(\.label) == ["locked"])
                let statistics = try await Self.statistics(of: worker, completed: 2)
                try await eventually("the reaper to count the job") { worker.statistics.reaped >= 1 }
                #expect(worker.statistics.reaped == 1)
                #expect(statistics.leasesLost == 1)
                #expect(statistics.claimed == 3)
            }
        }

        // MARK: - A dependent enqueued in a transaction that stays open

        @Test
        func aDependentEnqueuedInATransactionOpenPastALeaseDoesNotCostTheRunningJobItDependsOnItsLease()
            async throws
        {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                let running = try await Self.enqueue("depended on", fixture, table: table, runsUntilCancelled: true)
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("depended on") }
                // The application's queue (not the fixture's, whose connection the checks below use).
                let application = try fixture.makeQueue()
                var dependentInput = fixture.input("dependent")
                dependentInput.effectsTable = table
                let dependent = try await application.withTransaction { [dependentInput] transaction in
                    let id = try application.enqueue(
                        TestJob.self, input: dependentInput, options: DurableJobOptions(dependencies: [running]),
                        in: transaction)
                    // The application's own work in the same transaction, longer than a lease: time must pass with
                    // the transaction open (on the queue's database thread, not the cooperative pool).
                    Thread.sleep(forTimeInterval: 2 * Double(TestDatabase.lease.components.seconds))
                    return id
                }
                fixture.probe.releaseWaitingJobs()
                _ = try await fixture.waitUntilFinished(running)
                _ = try await fixture.waitUntilFinished(dependent)
                try await Self.expectCompletedOnce(running, attempt: 1, errors: [], table: table, fixture)
                try await Self.expectCompletedOnce(dependent, attempt: 1, errors: [], table: table, fixture)
                let statistics = try await Self.statistics(of: worker, completed: 2)
                #expect(statistics.leasesLost == 0)
                #expect(fixture.probe.events(.sawCancellation).isEmpty)
            }
        }

        // MARK: - Helpers

        /// Enqueues a ``TestJob`` labelled `label` whose completion hook writes its effect row into `table`.
        static func enqueue(
            _ label: String, _ fixture: TestFixture, table: String, sleepMilliseconds: Int = 0,
            failingAttempts: Int = 0, runsUntilCancelled: Bool = false,
            options: DurableJobOptions = DurableJobOptions()
        ) async throws -> JobID {
            var input = fixture.input(label)
            input.effectsTable = table
            input.sleepMilliseconds = sleepMilliseconds
            input.failingAttempts = failingAttempts
            input.runsUntilCancelled = runsUntilCancelled
            return try await fixture.queue.enqueue(TestJob.self, input: input, options: options)
        }

        /// Checks that `id` completed once: completed, on `attempt`, with `errors` as its history, and exactly one
        /// effect row in `table`.
        static func expectCompletedOnce(
            _ id: JobID, attempt: Int, errors: [String], table: String, _ fixture: TestFixture,
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            let job = try await fixture.queue.job(id)
            #expect(job.state == .completed, sourceLocation: sourceLocation)
            #expect(job.attempt == attempt, sourceLocation: sourceLocation)
            #expect(job.errors == errors, sourceLocation: sourceLocation)
            let effects = try await fixture.count(
                "SELECT count(*) FROM \(table) WHERE job_id = $1::bigint", [String(id.rawValue)])
            #expect(effects == 1, "effect rows of \(id)", sourceLocation: sourceLocation)
        }

        /// The worker's statistics once it has counted `completed` completions (it counts one after its commit),
        /// checked to be exactly that many.
        static func statistics(
            of worker: DurableWorker, completed: Int, sourceLocation: SourceLocation = #_sourceLocation
        ) async throws -> DurableWorker.Statistics {
            try await eventually("\(worker.name) to count \(completed) completion(s)") {
                worker.statistics.completed >= completed
            }
            let statistics = worker.statistics
            #expect(statistics.completed == completed, sourceLocation: sourceLocation)
            return statistics
        }

        /// A job's lease as the database has it.
        struct Lease: Equatable {
            /// The fencing token of the claim that took it; `nil` without a lease.
            var token: Int64?
            /// When it ends, in seconds since 1970; 0 without a lease.
            var expires: Double

            /// Whether this is `earlier` extended: the same claim's lease (a new claim would take a new token),
            /// ending later.
            func renews(_ earlier: Lease) -> Bool {
                token != nil && token == earlier.token && expires > earlier.expires
            }
        }

        /// The job's lease, as the database has it now.
        static func lease(of id: JobID, _ fixture: TestFixture) async throws -> Lease {
            let row = try await fixture.sql(
                "SELECT lease_token, extract(epoch FROM lease_expires_at)::float8 AS expires "
                    + "FROM \(fixture.schema).jobs WHERE id = $1::bigint", [String(id.rawValue)]
            ).rows.first
            return Lease(
                token: row?["lease_token"].flatMap(Int64.init), expires: row?["expires"].flatMap(Double.init) ?? 0)
        }

        /// How many statements on the schema's tables (other than the caller's) wait for a lock now.
        static func statementsWaitingForALock(_ fixture: TestFixture) async throws -> Int {
            try await fixture.count(
                """
                SELECT count(*) FROM pg_stat_activity
                WHERE wait_event_type = 'Lock' AND position($1 IN query) > 0 AND pid <> pg_backend_pid()
                """, [fixture.schema + "."])
        }

        /// When the fixture's server last started (seconds since 1970), retried while its connection is reopened.
        static func serverStartTime(_ fixture: TestFixture) async throws -> Double {
            var started: Double?
            try await eventually("the server to answer") {
                let row = try? await fixture.sql(
                    "SELECT extract(epoch FROM pg_postmaster_start_time())::float8 AS started"
                ).rows.first
                started = row?["started"].flatMap(Double.init)
                return started != nil
            }
            return started ?? 0
        }
    }

    /// A client's transaction holding a row lock on one job (`FOR SHARE` or `FOR UPDATE`) on a connection of its
    /// own, until ``commit()``.
    ///
    /// `@unchecked Sendable`: the connection is used by one blocking call at a time, each awaited before the next.
    final class ClientRowLock: @unchecked Sendable {
        private let connection: PostgresConnection

        private init(connection: PostgresConnection) {
            self.connection = connection
        }

        /// Opens a connection to the fixture's server, begins a transaction and locks the row of `id` with `lock`.
        static func take(_ lock: String, on id: JobID, _ fixture: TestFixture) async throws -> ClientRowLock {
            try await runBlocking { [url = fixture.url, schema = fixture.schema] in
                let client = ClientRowLock(connection: try PostgresConnection(url))
                try client.connection.execute("BEGIN")
                let rows = try client.connection.execute(
                    "SELECT id FROM \(schema).jobs WHERE id = $1::bigint \(lock)", [String(id.rawValue)]
                ).rows
                guard rows.count == 1 else { throw DurableError.jobNotFound(id) }
                return client
            }
        }

        /// Commits the transaction, releasing the lock, and closes the connection.
        func commit() async throws {
            try await runBlocking {
                defer { self.connection.close() }
                try self.connection.execute("COMMIT")
            }
        }
    }
#endif
