#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    #if canImport(Glibc)
        import Glibc
    #endif

    /// DurableFleet worker processes operated as a team would: a periodic tick on every worker with workers
    /// killed (the elected one among them), and poisoned jobs healed and retried with `pk-jobs`.
    @Suite(
        .enabled(
            if: FleetFixture.ready && AdminTool.executable != nil, "needs PK_POSTGRES_URL, DurableFleet and pk-jobs"),
        .serialized)
    struct FleetOperationsTests {
        typealias Fleet = FleetProcessTests

        struct TickReport: Decodable {
            let states: [String: Int]
            let effects: Int
            let duplicateEffects: Int
            let ticks: Int
            let duplicateTicks: Int
        }

        static func report(_ database: String, _ schema: String) throws -> TickReport {
            let output = try Fleet.run(database, schema, ["report", "--json"])
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
                throw Fleet.Failure("no JSON in \(output)")
            }
            return try JSONDecoder().decode(TickReport.self, from: Data(line.utf8))
        }

        static func worker(_ database: String, _ schema: String, _ name: String, _ extra: [String]) throws
            -> ChildProcess
        {
            let child = try Fleet.fleet(
                database, schema, ["work", "--worker", name, "--lease-ms", "1000"] + extra)
            guard child.waitForOutput(containing: "ready", timeout: 60) else {
                child.send(SIGKILL)
                throw Fleet.Failure("\(name) did not start: \(child.output)")
            }
            return child
        }

        @Test func ticksGoOnOncePerPeriodWhileWorkersAreKilled() async throws {
            let database = Fleet.url
            let schema = Fleet.schemaName()
            defer { Fleet.dropSchemas(database, schema) }
            let report = try await runBlocking { () throws -> TickReport in
                let tick = ["--tick-every-ms", "200"]
                var workers = try ["a", "b", "c"].map { try Self.worker(database, schema, $0, tick) }
                defer { for child in workers { child.send(SIGKILL) } }
                // Kill a worker at a time, replacing it, while the ticks go on.
                for round in 0..<3 {
                    let before = try Self.report(database, schema).ticks
                    guard try Fleet.waitFor({ try Self.report(database, schema).ticks >= before + 5 }) else {
                        throw Fleet.Failure("the ticks stopped in round \(round)")
                    }
                    let victim = workers.removeFirst()
                    victim.send(SIGKILL)
                    _ = victim.waitForExit(timeout: 30)
                    workers.append(try Self.worker(database, schema, "r\(round)", tick))
                }
                let before = try Self.report(database, schema).ticks
                guard try Fleet.waitFor({ try Self.report(database, schema).ticks >= before + 5 }) else {
                    throw Fleet.Failure("the ticks stopped after the kills")
                }
                return try Self.report(database, schema)
            }
            #expect(report.ticks >= 20)
            #expect(report.duplicateTicks == 0)
        }

        @Test func poisonedJobsFailThenHealedAndRetriedWithTheAdminToolTheyComplete() async throws {
            let database = Fleet.url
            let schema = Fleet.schemaName()
            defer { Fleet.dropSchemas(database, schema) }
            let (failedBefore, report) = try await runBlocking { () throws -> (Int, TickReport) in
                _ = try Fleet.run(
                    database, schema,
                    ["enqueue", "--jobs", "30", "--poison", "0.3", "--seed", "7", "--queue", "mail", "--work-ms", "1"])
                let child = try Self.worker(database, schema, "mailer", ["--queues", "mail,default"])
                defer {
                    child.send(SIGTERM)
                    _ = child.waitForExit(timeout: 30)
                }
                guard
                    try Fleet.waitFor({
                        let states = try Self.report(database, schema).states
                        return (states["completed"] ?? 0) + (states["failed"] ?? 0) == 30
                    })
                else { throw Fleet.Failure("the jobs did not all end") }
                let failed = try Self.report(database, schema).states["failed"] ?? 0
                _ = try Fleet.run(database, schema, ["heal"])
                let retried = try AdminTool.execute([
                    "--database", database, "--schema", schema, "retry", "--state", "failed",
                ])
                guard retried.status == 0 else { throw Fleet.Failure("pk-jobs retry: \(retried.standardError)") }
                guard try Fleet.waitFor({ try Self.report(database, schema).states["completed"] == 30 }) else {
                    throw Fleet.Failure("the healed jobs did not complete")
                }
                return (failed, try Self.report(database, schema))
            }
            #expect(failedBefore > 0, "seed 7 poisons some of the 30 jobs")
            #expect(report.states["completed"] == 30)
            #expect(report.effects == 30)
            #expect(report.duplicateEffects == 0)
        }
    }
#endif
