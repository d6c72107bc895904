#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    #if canImport(Glibc)
        import Glibc
    #endif

    /// Worker processes of the DurableFleet example against a real server: a worker killed with SIGKILL mid-job,
    /// and a database restarted mid-run. Completion must stay exactly-once (one effect row per job).
    @Suite(.enabled(if: FleetFixture.ready, "needs PK_POSTGRES_URL and the DurableFleet product"), .serialized)
    struct FleetProcessTests {
        static var url: String { FleetFixture.url }
        static var executable: String? { FleetFixture.executable }

        /// The repository's Scripts/postgres.sh.
        static let postgresScript = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Scripts/postgres.sh").path

        struct Report: Decodable {
            let total: Int
            let states: [String: Int]
            let effects: Int
            let duplicateEffects: Int
            let orderViolations: Int
        }

        static func fleet(_ database: String, _ schema: String, _ arguments: [String]) throws -> ChildProcess {
            try ChildProcess(
                executable: executable ?? "DurableFleet",
                arguments: ["--database", database, "--schema", schema] + arguments)
        }

        /// Runs a short DurableFleet command to its end and returns its output.
        static func run(_ database: String, _ schema: String, _ arguments: [String]) throws -> String {
            let child = try fleet(database, schema, arguments)
            let termination = child.waitForExit(timeout: 60)
            guard termination == .exited(0) else {
                throw Failure(
                    "DurableFleet \(arguments) ended \(termination.map(\.description) ?? "by timeout"): \(child.output)"
                )
            }
            return child.output
        }

        static func report(_ database: String, _ schema: String) throws -> Report {
            let output = try run(database, schema, ["report", "--json"])
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
                throw Failure("no JSON in \(output)")
            }
            return try JSONDecoder().decode(Report.self, from: Data(line.utf8))
        }

        /// Polls `condition` every 100 ms for up to `timeout` seconds (a hang guard, not a performance check).
        static func waitFor(timeout: TimeInterval = 60, _ condition: () throws -> Bool) rethrows -> Bool {
            let deadline = Date().addingTimeInterval(timeout)
            while Date() < deadline {
                if try condition() { return true }
                Thread.sleep(forTimeInterval: 0.1)
            }
            return try condition()
        }

        static func dropSchemas(_ database: String, _ schema: String) {
            guard let connection = try? PostgresConnection(database) else { return }
            _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
            _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema)_demo CASCADE")
        }

        struct Failure: Error, CustomStringConvertible {
            let description: String
            init(_ description: String) { self.description = description }
        }

        static func schemaName() -> String { "fleet_" + String(UInt32.random(in: 0...UInt32.max), radix: 16) }

        @Test func aWorkerKilledMidJobHasItsJobsRunAgainByAnotherWorkerAndCompletedExactlyOnce() async throws {
            let database = Self.url
            let schema = Self.schemaName()
            defer { Self.dropSchemas(database, schema) }
            let outcome = try await runBlocking { () throws -> (Report, [String], String) in
                _ = try Self.run(database, schema, ["enqueue", "--jobs", "24", "--work-ms", "300"])
                let victim = try Self.fleet(
                    database, schema, ["work", "--worker", "victim", "--concurrency", "4", "--lease-ms", "2000"])
                guard victim.waitForOutput(containing: "ready", timeout: 60) else {
                    victim.send(SIGKILL)
                    throw Failure("the victim did not start: \(victim.output)")
                }
                let connection = try PostgresConnection(database)
                let holding = try Self.waitFor {
                    let rows = try connection.execute(
                        "SELECT count(*) AS n FROM \(schema).jobs WHERE state = 'running' AND lease_owner = 'victim'")
                    return try (rows.rows.first?.int64("n") ?? 0) > 0
                }
                victim.send(SIGKILL)
                _ = victim.waitForExit(timeout: 30)
                guard holding else { throw Failure("the victim never held a job") }
                let held = try connection.execute(
                    "SELECT id FROM \(schema).jobs WHERE state = 'running' AND lease_owner = 'victim'"
                ).rows.compactMap { $0["id"] }

                let rescuer = try Self.fleet(
                    database, schema, ["work", "--worker", "rescuer", "--concurrency", "4", "--lease-ms", "2000"])
                let finished = try Self.waitFor { try Self.report(database, schema).states["completed"] == 24 }
                rescuer.send(SIGTERM)
                let termination = rescuer.waitForExit(timeout: 30)
                guard finished else { throw Failure("not every job completed: \(rescuer.output)") }
                guard termination == .exited(0) else {
                    throw Failure(
                        "the rescuer ended \(termination.map(\.description) ?? "by timeout"): \(rescuer.output)")
                }
                var histories: [String] = []
                for id in held {
                    let row = try connection.execute(
                        "SELECT attempt, errors::text AS errors FROM \(schema).jobs WHERE id = $1::bigint", [id]
                    ).rows.first
                    histories.append("\(row?["attempt"] ?? "?") \(row?["errors"] ?? "")")
                }
                return (try Self.report(database, schema), histories, rescuer.output)
            }
            let (report, histories, rescuerOutput) = outcome
            #expect(report.total == 24)
            #expect(report.states["completed"] == 24)
            #expect(report.effects == 24)
            #expect(report.duplicateEffects == 0)
            #expect(!histories.isEmpty)
            for history in histories {
                #expect(history.hasPrefix("2 "), "a job the victim held ran again: \(history)")
                #expect(history.contains("victim"), "its history names the lost lease: \(history)")
            }
            #expect(rescuerOutput.contains("reaped="), "\(rescuerOutput)")
        }

        @Test func aDatabaseRestartedMidRunLosesNothingAndCompletesEveryJobOnce() async throws {
            // A server of this test's own, so that restarting it disturbs no other suite.
            let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
                "pk-restart-\(UInt32.random(in: 0...UInt32.max))"
            ).path
            let environment = ProcessInfo.processInfo.environment.merging(
                ["PK_POSTGRES_DIR": directory, "PK_POSTGRES_PORT": "5441"], uniquingKeysWith: { $1 })
            let script = { @Sendable (command: String) throws -> String in
                let child = try ChildProcess(
                    executable: "/bin/bash", arguments: [Self.postgresScript, command], environment: environment)
                let termination = child.waitForExit(timeout: 120)
                guard termination == .exited(0) else {
                    throw Failure(
                        "postgres.sh \(command): \(termination.map(\.description) ?? "timeout"): \(child.output)")
                }
                return child.output.trimmingCharacters(in: .whitespacesAndNewlines)
            }
            let schema = Self.schemaName()
            let (report, beforeRestart) = try await runBlocking { () throws -> (Report, Int) in
                let database = try script("start").split(separator: "\n").last.map(String.init) ?? ""
                defer {
                    _ = try? script("stop")
                    try? FileManager.default.removeItem(atPath: directory)
                }
                _ = try Self.run(database, schema, ["enqueue", "--jobs", "60", "--dag", "--work-ms", "400"])
                let workers = try ["one", "two"].map { name in
                    try Self.fleet(
                        database, schema, ["work", "--worker", name, "--concurrency", "3", "--lease-ms", "3000"])
                }
                for worker in workers where !worker.waitForOutput(containing: "ready", timeout: 60) {
                    for worker in workers { worker.send(SIGKILL) }
                    throw Failure("a worker did not start: \(worker.output)")
                }
                // Progress read with one connection (spawning a report takes long under ThreadSanitizer): restart
                // once a few jobs completed, with most of the run (60 jobs of 0.4 s, 6 at a time) still to come.
                let progress = try PostgresConnection(database)
                func completed() -> Int {
                    let row = try? progress.execute(
                        "SELECT count(*) AS n FROM \(schema).jobs WHERE state = 'completed'"
                    ).rows.first
                    return Int((try? row?.int64("n")) ?? 0)
                }
                let started = Self.waitFor { completed() >= 3 }
                let beforeRestart = completed()
                progress.close()
                _ = try script("restart")
                let finished = Self.waitFor(timeout: 90) {
                    (try? Self.report(database, schema)).map { $0.states["completed"] == 60 } ?? false
                }
                for worker in workers { worker.send(SIGTERM) }
                let terminations = workers.map { $0.waitForExit(timeout: 30) }
                guard started, finished else {
                    throw Failure("not every job completed: \(workers.map(\.output).joined(separator: "\n---\n"))")
                }
                guard terminations.allSatisfy({ $0 == .exited(0) }) else {
                    throw Failure("a worker ended badly: \(terminations) \(workers.map(\.output))")
                }
                return (try Self.report(database, schema), beforeRestart)
            }
            #expect(beforeRestart < 60, "the restart came while jobs were left")
            #expect(report.total == 60)
            #expect(report.states["completed"] == 60)
            #expect(report.effects == 60)
            #expect(report.duplicateEffects == 0)
            #expect(report.orderViolations == 0)
        }

        @Test func aFleetOfFourWorkerProcessesRunsADagOfAThousandJobsInOrderAndExactlyOnce() async throws {
            let database = Self.url
            let schema = Self.schemaName()
            defer { Self.dropSchemas(database, schema) }
            let report = try await runBlocking { () throws -> Report in
                _ = try Self.run(
                    database, schema, ["enqueue", "--jobs", "1000", "--dag", "--fail-rate", "0.05", "--work-ms", "0"])
                let workers = try (1...4).map { index in
                    try Self.fleet(database, schema, ["work", "--worker", "w\(index)", "--concurrency", "4"])
                }
                let finished = Self.waitFor(timeout: 120) {
                    (try? Self.report(database, schema)).map { $0.states["completed"] == 1000 } ?? false
                }
                for worker in workers { worker.send(SIGTERM) }
                let terminations = workers.map { $0.waitForExit(timeout: 30) }
                guard finished else { throw Failure("not every job completed: \(workers.map(\.output))") }
                guard terminations.allSatisfy({ $0 == .exited(0) }) else {
                    throw Failure("a worker ended badly: \(terminations) \(workers.map(\.output))")
                }
                return try Self.report(database, schema)
            }
            #expect(report.total == 1000)
            #expect(report.states["completed"] == 1000)
            #expect(report.effects == 1000)
            #expect(report.duplicateEffects == 0)
            #expect(report.orderViolations == 0)
        }
    }

    /// Where the suite finds its server and the example.
    enum FleetFixture {
        static let url = ProcessInfo.processInfo.environment["PK_POSTGRES_URL"] ?? ""
        static let executable = ProductsDirectory.executable(named: "DurableFleet")
        /// Not under ThreadSanitizer: the workers are child processes (instrumented, so slow, and invisible to
        /// the sanitizer in this process); the in-process suites cover the worker's races.
        static var ready: Bool {
            #if PK_TSAN
                false
            #else
                !url.isEmpty && executable != nil
            #endif
        }
    }
#endif
