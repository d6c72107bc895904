#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting

    #if canImport(Glibc)
        import Glibc
    #endif

    /// A seeded run: a random DAG enqueued on a server of the run's own, a fleet of DurableFleet worker processes
    /// (`--log-starts`, short leases), disturbed at random moments until every job has finished: a worker killed
    /// with SIGKILL (and replaced), worker connections ended with `pg_terminate_backend`, a worker stopped with
    /// SIGTERM (and replaced), and the server restarted exactly once. The seed decides the graph, the planned
    /// failures, and the order and choice of disturbances; their moments depend on the machine. Blocks.
    struct FleetChaosRun {
        let seed: UInt64
        let level: FleetLevel
        private var random: SplitMix
        private var record = FleetRunRecord()
        private var server: RestartableServer?
        private var control: PostgresConnection?
        private let schema = "rfleet_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        private let clock = Date()
        private var nextWorker = 1

        /// The port of the run's own server.
        static let port = 5443

        struct Failure: Error, CustomStringConvertible {
            let description: String
        }

        init(seed: UInt64, level: FleetLevel) {
            self.seed = seed
            self.level = level
            random = SplitMix(seed: seed)
            record.seed = seed
            record.level = level
        }

        /// Runs the scenario and returns what it left. Throws when it could not be run (a server that did not
        /// start, a worker that did not start, jobs that did not finish within the hang guard), with what happened
        /// so far in the error.
        mutating func run() throws -> FleetRunRecord {
            let server = try RestartableServer.start(port: Self.port, prefix: "pk-rfleet")
            self.server = server
            defer {
                for worker in record.workers where worker.termination == nil { worker.child.send(SIGKILL) }
                control?.close()
                server.remove()
            }
            do {
                try enqueue()
                for _ in 0..<level.workers { try startWorker() }
                try disturbUntilFinished()
                try stopWorkers()
                try collect()
            } catch {
                throw Failure(
                    description: "\(error)\n\(record.summary)\nevents:\n  \(record.events.joined(separator: "\n  "))"
                        + "\nworkers' output:\n\(workerOutputs())")
            }
            record.duration = elapsed
            return record
        }

        private var elapsed: TimeInterval { Date().timeIntervalSince(clock) }

        private mutating func note(_ event: String) {
            record.events.append("\(FleetRunRecord.seconds(elapsed)): \(event)")
        }

        private func database(_ application: String) -> String {
            "\(server?.url ?? "") application_name=\(application)"
        }

        // MARK: - Processes

        private func fleet(_ application: String, _ arguments: [String]) throws -> ChildProcess {
            try ChildProcess(
                executable: FleetFixture.executable ?? "DurableFleet",
                arguments: ["--database", database(application), "--schema", schema] + arguments)
        }

        /// Runs a short DurableFleet command to its end and returns its output.
        private func runFleet(_ arguments: [String]) throws -> String {
            let child = try fleet("fleet_admin", arguments)
            let termination = child.waitForExit(timeout: 120)
            guard termination == .exited(0) else {
                throw Failure(
                    description:
                        "DurableFleet \(arguments) ended \(termination.map(\.description) ?? "by timeout"): "
                        + child.output)
            }
            return child.output
        }

        private mutating func enqueue() throws {
            let enqueueSeed = random.next() >> 1
            _ = try runFleet([
                "enqueue", "--jobs", String(level.jobs), "--dag", "--seed", String(enqueueSeed), "--work-ms",
                String(level.workMilliseconds), "--fail-rate", String(level.failRate), "--fail-attempts",
                String(level.failAttempts), "--max-attempts", String(level.maxAttempts), "--doomed-rate",
                String(level.doomedRate), "--retry-wait-ms", String(level.retryWaitMilliseconds),
            ])
            note("enqueued \(level.jobs) jobs (graph seed \(enqueueSeed))")
        }

        /// Starts a worker named `w<n>` and waits until it is ready.
        @discardableResult
        private mutating func startWorker() throws -> String {
            let name = "w\(nextWorker)"
            nextWorker += 1
            let child = try fleet(
                "fleet_\(name)",
                [
                    "work", "--worker", name, "--concurrency", String(level.concurrency), "--lease-ms",
                    String(level.leaseMilliseconds), "--log-starts",
                ])
            record.workers.append(FleetWorker(name: name, child: child))
            guard child.waitForOutput(containing: "worker \(name) ready", timeout: 60) else {
                throw Failure(description: "worker \(name) did not start: \(child.output)")
            }
            return name
        }

        private var running: [Int] { record.workers.indices.filter { record.workers[$0].termination == nil } }

        // MARK: - Disturbances

        private enum Disturbance {
            case kill, terminate, stop
        }

        /// Disturbs the fleet at random moments until every job has finished; restarts the server once, when the
        /// finished share first reaches a random point between a fifth and three fifths.
        private mutating func disturbUntilFinished() throws {
            let restartShare = Double.random(in: 0.2...0.6, using: &random)
            let deadline = Date().addingTimeInterval(level.hangGuard)
            // The first two are a kill and a termination, in random order, so that even a quick run has both.
            var queue: [Disturbance] = Bool.random(using: &random) ? [.kill, .terminate] : [.terminate, .kill]
            var nextAt = Date().addingTimeInterval(Double.random(in: level.pause, using: &random))
            while true {
                let finished = progress()
                if let finished, finished >= level.jobs { break }
                guard Date() < deadline else {
                    throw Failure(
                        description: "the jobs did not finish within \(level.hangGuard) s (\(finished ?? -1))")
                }
                if record.restarts == 0, let finished, Double(finished) >= restartShare * Double(level.jobs) {
                    try restartServer(finished: finished)
                    continue
                }
                if Date() >= nextAt {
                    let disturbance = queue.isEmpty ? pick() : queue.removeFirst()
                    if let disturbance { try perform(disturbance) }
                    nextAt = Date().addingTimeInterval(Double.random(in: level.pause, using: &random))
                }
                Thread.sleep(forTimeInterval: 0.05)
            }
            note("every job finished")
            if record.restarts == 0 { note("the run ended before the restart") }
        }

        /// A disturbance with some left to do, or nil.
        private mutating func pick() -> Disturbance? {
            var candidates: [Disturbance] = []
            if record.kills < level.kills { candidates += [.kill, .kill] }
            if record.terminations < level.terminations { candidates += [.terminate, .terminate, .terminate] }
            if record.stops < level.stops { candidates.append(.stop) }
            return candidates.randomElement(using: &random)
        }

        private mutating func perform(_ disturbance: Disturbance) throws {
            switch disturbance {
            case .kill:
                guard let index = holdingJobs().randomElement(using: &random) ?? running.randomElement(using: &random)
                else { return }
                let name = record.workers[index].name
                record.workers[index].child.send(SIGKILL)
                record.workers[index].killed = true
                record.workers[index].termination = record.workers[index].child.waitForExit(timeout: 30)
                record.kills += 1
                readHeld(by: name)
                let replacement = try startWorker()
                note("killed \(name) with SIGKILL; replaced by \(replacement)")
            case .stop:
                guard let index = running.randomElement(using: &random) else { return }
                let name = record.workers[index].name
                record.workers[index].child.send(SIGTERM)
                record.workers[index].termination = record.workers[index].child.waitForExit(timeout: 30)
                record.stops += 1
                let replacement = try startWorker()
                note("stopped \(name) with SIGTERM; replaced by \(replacement)")
            case .terminate:
                terminateConnections()
            }
        }

        /// Ends worker connections with `pg_terminate_backend`: one, every one of a worker's, or every one of
        /// every worker's; never the run's own (those named `fleet_admin` and the control connection).
        private mutating func terminateConnections() {
            let names = running.map { record.workers[$0].name }
            guard let victim = names.randomElement(using: &random) else { return }
            let mode = Int.random(in: 0..<3, using: &random)
            let filter: String
            let what: String
            switch mode {
            case 0:
                filter = "application_name = 'fleet_\(victim)' ORDER BY random() LIMIT 1"
                what = "one connection of \(victim)"
            case 1:
                filter = "application_name = 'fleet_\(victim)'"
                what = "every connection of \(victim)"
            default:
                filter = "application_name LIKE 'fleet\\_w%'"
                what = "every worker connection"
            }
            let ended = withControl { connection in
                try connection.execute(
                    """
                    SELECT count(*) FILTER (WHERE pg_terminate_backend(pid)) AS n FROM (
                        SELECT pid FROM pg_stat_activity WHERE pid <> pg_backend_pid() AND \(filter)) victims
                    """
                ).rows.first?.int64("n")
            }
            record.terminations += 1
            record.terminatedBackends += Int(ended ?? 0)
            note("terminated \(what): \(ended.map { "\($0) backend(s)" } ?? "could not ask")")
        }

        private mutating func restartServer(finished: Int) throws {
            control?.close()
            control = nil
            let began = Date()
            record.restartAt = elapsed
            try server?.restart()
            record.restartTook = Date().timeIntervalSince(began)
            record.restarts += 1
            note(
                "restarted the server with \(finished) of \(level.jobs) jobs finished; it took "
                    + FleetRunRecord.seconds(record.restartTook))
        }

        // MARK: - The database

        /// Runs `body` on the control connection, opening it when needed; nil when the server could not be reached.
        private mutating func withControl<T>(_ body: (PostgresConnection) throws -> T?) -> T? {
            do {
                if control == nil || control?.isOpen == false {
                    control = try PostgresConnection(database("fleet_test"))
                }
                guard let control else { return nil }
                return try body(control)
            } catch {
                control?.close()
                control = nil
                return nil
            }
        }

        /// The running workers that hold a job now (a kill then cuts attempts short).
        private mutating func holdingJobs() -> [Int] {
            let schema = schema
            let owners =
                withControl { connection in
                    try connection.execute(
                        "SELECT DISTINCT lease_owner FROM \(schema).jobs WHERE state = 'running'"
                    ).rows.compactMap { $0["lease_owner"] }
                } ?? []
            return running.filter { owners.contains(record.workers[$0].name) }
        }

        /// Records the attempts a killed worker held when it died: once its connections have ended (so that a
        /// commit it sent before dying has happened or never will), the running jobs its leases name. The reaper
        /// has not touched them yet unless a lease expired before the kill.
        private mutating func readHeld(by name: String) {
            let schema = schema
            let held = withControl { connection -> [FleetRunRecord.Held]? in
                let deadline = Date().addingTimeInterval(30)
                while try connection.execute(
                    "SELECT count(*) AS n FROM pg_stat_activity WHERE application_name = $1", ["fleet_\(name)"]
                ).rows.first?.int64("n") != 0 {
                    guard Date() < deadline else { return nil }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                return try connection.execute(
                    "SELECT id, attempt FROM \(schema).jobs WHERE state = 'running' AND lease_owner = $1", [name]
                ).rows.map {
                    FleetRunRecord.Held(job: try $0.int64("id"), attempt: Int(try $0.int64("attempt")), worker: name)
                }
            }
            if let held {
                record.heldByKilled.formUnion(held)
            } else {
                record.unread.insert(name)
                note("could not read what \(name) held when it died")
            }
        }

        /// How many jobs have finished (completed or failed), or nil when the server could not be asked.
        private mutating func progress() -> Int? {
            let schema = schema
            return withControl { connection in
                try connection.execute(
                    "SELECT count(*) AS n FROM \(schema).jobs WHERE state IN ('completed', 'failed', 'cancelled')"
                ).rows.first.map { Int(try $0.int64("n")) }
            }
        }

        /// Stops the workers still running with SIGTERM and waits for them.
        private mutating func stopWorkers() throws {
            for index in running { record.workers[index].child.send(SIGTERM) }
            for index in running {
                record.workers[index].termination = record.workers[index].child.waitForExit(timeout: 60)
                if record.workers[index].termination == nil {
                    note("\(record.workers[index].name) did not stop within 60 s; killed")
                    record.workers[index].termination = .signalled(SIGKILL)
                }
            }
            note("stopped the fleet with SIGTERM")
        }

        /// Reads the jobs, the effects and the example's report.
        private mutating func collect() throws {
            let output = try runFleet(["report", "--json"])
            guard let line = output.split(separator: "\n").last(where: { $0.hasPrefix("{") }) else {
                throw Failure(description: "no JSON in the report: \(output)")
            }
            record.report = try JSONDecoder().decode(FleetRunRecord.Report.self, from: Data(line.utf8))
            let connection = try PostgresConnection(database("fleet_test"))
            defer { connection.close() }
            record.jobs = try connection.execute(
                """
                SELECT id, state, attempt, max_attempts, errors::text AS errors,
                    coalesce((input->>'failingAttempts')::int, 0) AS failing
                FROM \(schema).jobs ORDER BY id
                """
            ).rows.map { row in
                FleetRunRecord.Job(
                    id: try row.int64("id"), state: row["state"] ?? "?", attempt: Int(try row.int64("attempt")),
                    maxAttempts: Int(try row.int64("max_attempts")), failing: Int(try row.int64("failing")),
                    errors: try JSONDecoder().decode([String].self, from: Data((row["errors"] ?? "[]").utf8)))
            }
            record.effects = try connection.execute("SELECT job_id, worker FROM \(schema)_demo.effects").rows.map {
                (try $0.int64("job_id"), $0["worker"] ?? "?")
            }
        }

        /// The end of each worker's output, without its `start` lines.
        private func workerOutputs() -> String {
            record.workers.map { worker in
                let lines = worker.child.output.split(separator: "\n").filter { !$0.hasPrefix("start ") }
                return "--- \(worker.name):\n" + lines.suffix(30).joined(separator: "\n")
            }.joined(separator: "\n")
        }
    }
#endif
