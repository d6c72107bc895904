#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Periodic jobs against the real server: one job per period across several workers, each knowing its period;
    /// a worker taking over when the elected one stops; run on start; missed periods run once or skipped.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct PeriodicJobTests {

        static func ticks(_ fixture: TestFixture) throws -> DurablePeriodicJob {
            try DurablePeriodicJob(
                name: "tick", schedule: .every(.milliseconds(200)), TestJob.self, input: fixture.input("tick"))
        }

        /// The periods enqueued so far, and how many jobs there are.
        static func periods(_ fixture: TestFixture) async throws -> (distinct: Int, jobs: Int) {
            // One statement, so that a job enqueued meanwhile is counted by both or neither.
            let row = try await fixture.sql(
                "SELECT count(DISTINCT period_at) AS distinct_periods, count(*) AS jobs FROM \(fixture.schema).jobs"
            ).rows.first
            return (Int(try row?.int64("distinct_periods") ?? -1), Int(try row?.int64("jobs") ?? -1))
        }

        @Test func severalWorkersEnqueueEachPeriodOnceAndEachJobKnowsItsPeriod() async throws {
            try await withFixture { fixture in
                let periodic = try Self.ticks(fixture)
                let workers = try (0..<3).map { _ in try fixture.startWorker(periodicJobs: [periodic]) }
                try await eventually("ten periods to be enqueued") { try await Self.periods(fixture).jobs >= 10 }
                let (distinct, jobs) = try await Self.periods(fixture)
                #expect(distinct == jobs, "one job per period")
                // Each period is a multiple of 200 ms from the epoch.
                let offGrid = try await fixture.count(
                    """
                    SELECT count(*) FROM \(fixture.schema).jobs
                    WHERE (extract(epoch FROM period_at) * 1000)::bigint % 200 <> 0
                    """)
                #expect(offGrid == 0)
                let enqueued = workers.map(\.statistics.periodicEnqueued).reduce(0, +)
                #expect(enqueued >= 10)
                try await eventually("the jobs to run") {
                    try await fixture.queue.queueStatistics().count(queue: "default", state: .completed) >= 5
                }
            }
        }

        @Test func anotherWorkerTakesOverWhenTheOneEnqueueingStops() async throws {
            try await withFixture { fixture in
                let periodic = try Self.ticks(fixture)
                let first = try fixture.startWorker(periodicJobs: [periodic])
                try await eventually("periods to be enqueued") { try await Self.periods(fixture).jobs >= 3 }
                try await fixture.stop(first)
                let before = try await Self.periods(fixture).jobs
                let second = try fixture.startWorker(periodicJobs: [periodic])
                try await eventually("the second worker to enqueue periods") {
                    try await Self.periods(fixture).jobs >= before + 3
                }
                #expect(second.statistics.periodicEnqueued >= 3)
                let (distinct, jobs) = try await Self.periods(fixture)
                #expect(distinct == jobs)
            }
        }

        @Test func runOnStartRunsAtOnceTheFirstTimeTheFleetSeesTheJob() async throws {
            try await withFixture { fixture in
                let daily = try DurablePeriodicJob(
                    name: "daily", schedule: .cron("0 0 1 1 *"), TestJob.self, input: fixture.input("daily"),
                    runOnStart: true)
                let worker = try fixture.startWorker(periodicJobs: [daily])
                try await eventually("the job to run on start") { fixture.probe.hasStarted("daily") }
                try await fixture.stop(worker)
                // A later start does not run it again: it is not new to the fleet.
                try fixture.startWorker(periodicJobs: [daily])
                try await Task.sleep(for: .seconds(1))
                #expect(fixture.probe.startedLabels == ["daily"])
            }
        }

        @Test func missedPeriodsRunOnceOrAreSkippedAsTheJobSays() async throws {
            try await withFixture { fixture in
                // Yearly (on 1 January, UTC), so that no period falls due while the test runs.
                let yearly = try DurableSchedule.cron("0 0 1 1 *")
                let catchUp = try DurablePeriodicJob(
                    name: "catch-up", schedule: yearly, TestJob.self, input: fixture.input("catch-up"))
                let strict = try DurablePeriodicJob(
                    name: "strict", schedule: yearly, TestJob.self, input: fixture.input("strict"), missedPeriods: .skip
                )
                // As if the fleet had been down for three years since their last periods: three periods missed.
                for name in ["catch-up", "strict"] {
                    _ = try await fixture.sql(
                        """
                        INSERT INTO \(fixture.schema).periodic (name, last_period_at)
                        VALUES ($1, date_trunc('year', now()) - interval '3 years' + interval '1 day')
                        """, [name])
                }
                let worker = try fixture.startWorker(periodicJobs: [catchUp, strict])
                try await eventually("the latest missed period to run") { fixture.probe.hasStarted("catch-up") }
                // Two periods of the first skipped (it runs the latest), three of the second.
                try await eventually("both to be checked") { worker.statistics.periodsSkipped == 5 }
                #expect(fixture.probe.startedLabels == ["catch-up"])
                #expect(worker.statistics.periodicEnqueued == 1)
            }
        }

        @Test func badPeriodicJobsAreRefused() async throws {
            try await withFixture { fixture in
                let schedule = try DurableSchedule.every(.seconds(1))
                #expect(throws: DurableError.self) {
                    try DurablePeriodicJob(name: "", schedule: schedule, TestJob.self, input: fixture.input("x"))
                }
                #expect(throws: DurableError.self) {
                    try DurablePeriodicJob(
                        name: "keyed", schedule: schedule, TestJob.self, input: fixture.input("x"),
                        options: DurableJobOptions(uniqueKey: "mine"))
                }
                let one = try DurablePeriodicJob(
                    name: "same", schedule: schedule, TestJob.self, input: fixture.input("a"))
                #expect(throws: DurableError.self) { try fixture.makeWorker(periodicJobs: [one, one]) }
            }
        }
    }
#endif
