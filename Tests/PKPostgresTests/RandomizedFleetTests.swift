#if Postgres
    import Foundation
    import Testing

    /// A seeded, randomized fleet of DurableFleet worker processes against a PostgreSQL server of the test's own,
    /// disturbed while it runs: workers killed with SIGKILL and replaced, worker connections ended with
    /// `pg_terminate_backend`, a worker stopped with SIGTERM and replaced, the server restarted once (see
    /// ``FleetChaosRun``). Afterwards ``FleetInvariants`` must hold: every job completed (or, when planned, failed)
    /// with its full error history, each effect exactly once and in dependency order, no attempt spent without a run
    /// that started unless a kill cut it short, no lease lost by a worker that stayed alive.
    ///
    /// - `PK_FLEET_LEVEL`: the CI level by default (600 jobs, 3 workers, a few kills; about half a minute);
    ///   `heavy` for a long run (10,000 jobs, 4 workers, 2 s leases, hundreds of disturbances; several minutes).
    /// - `PK_FLEET_SEED=<n>` replays a run's graph, planned failures and disturbances (the seed is printed; the
    ///   disturbances' moments depend on the machine).
    ///
    /// Not under ThreadSanitizer (``FleetFixture/ready``): the workers are child processes.
    @Suite(.enabled(if: FleetFixture.ready, "needs PK_POSTGRES_URL and the DurableFleet product"), .serialized)
    struct RandomizedFleetTests {
        @Test func aDisturbedFleetCompletesEveryJobOnceAndSpendsAttemptsOnlyOnRunsThatStarted() async throws {
            let level = FleetLevel.current
            let seed =
                ProcessInfo.processInfo.environment["PK_FLEET_SEED"].flatMap(UInt64.init)
                ?? UInt64.random(in: 1...UInt64.max / 2)
            print("RandomizedFleetTests: seed \(seed), level \(level)")
            let record = try await runBlocking {
                var run = FleetChaosRun(seed: seed, level: level)
                return try run.run()
            }
            let violations = FleetInvariants.violations(of: record)
            let summary = "\(record.summary); \(FleetInvariants.tally(of: record))"
            if violations.isEmpty {
                print("RandomizedFleetTests: passed; \(summary)")
            } else {
                print("RandomizedFleetTests: failed; \(summary)")
                Issue.record(
                    Comment(
                        rawValue: "\(violations.count) violation(s); \(summary)\n  "
                            + violations.prefix(20).joined(separator: "\n  ") + "\nevents:\n  "
                            + record.events.joined(separator: "\n  ")))
            }
            #expect(record.jobs.count == level.jobs)
        }
    }
#endif
