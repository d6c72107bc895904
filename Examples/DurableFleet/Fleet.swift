#if Postgres
    import Foundation
    import PKCore
    import PKObservers
    import PKPostgres

    /// The three commands.
    struct Fleet {
        let options: FleetOptions
        let queue: DurableQueue

        init(_ options: FleetOptions) throws {
            self.options = options
            queue = try DurableQueue(connectionString: options.database, schema: options.schema)
        }

        /// The demo's effects table: built from the queue's schema name, which `DurableQueue` validated (lower-case
        /// letters, digits and underscores), never from anything a job's input says.
        private var effectsTable: String { "\(queue.schema)_demo.effects" }
        private var ticksTable: String { "\(queue.schema)_demo.ticks" }
        private var settingsTable: String { "\(queue.schema)_demo.settings" }

        /// Creates the demo's effects table (idempotent; concurrent callers are serialised by a lock).
        private func prepareEffects() throws {
            try queue.withTransaction { connection in
                try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [effectsTable])
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(queue.schema)_demo")
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(effectsTable) (
                        seq bigserial PRIMARY KEY, job_id bigint NOT NULL, worker text NOT NULL,
                        at timestamptz NOT NULL DEFAULT clock_timestamp())
                    """)
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(ticksTable) (
                        seq bigserial PRIMARY KEY, period_at timestamptz NOT NULL, job_id bigint NOT NULL,
                        worker text NOT NULL)
                    """)
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(settingsTable) (
                        id integer PRIMARY KEY CHECK (id = 1), healed boolean NOT NULL DEFAULT false)
                    """)
                try connection.execute("INSERT INTO \(settingsTable) (id) VALUES (1) ON CONFLICT DO NOTHING")
            }
        }

        /// From now on, poisoned jobs succeed (already failed ones need a retry: `pk-jobs retry --state failed`).
        func heal() throws {
            try prepareEffects()
            _ = try queue.withTransaction { connection in
                try connection.execute("UPDATE \(settingsTable) SET healed = true WHERE id = 1")
            }
            say("healed")
        }

        func enqueue(_ plan: FleetOptions.EnqueuePlan) throws {
            try prepareEffects()
            var random = FleetRandom(seed: plan.seed)
            // The shape first, so that a job's plan can depend on whether anything depends on it.
            var dependencies: [[Int]] = []
            for index in 0..<plan.jobs {
                var after: [Int] = []
                if plan.dag, index > 0 {
                    for _ in 0..<Int.random(in: 0...min(3, index), using: &random) {
                        after.append(Int.random(in: 0..<index, using: &random))
                    }
                }
                dependencies.append(after)
            }
            var hasDependents = [Bool](repeating: false, count: plan.jobs)
            for after in dependencies { for dependency in after { hasDependents[dependency] = true } }

            let graph = DurableGraph()
            var nodes: [DurableGraph.Node] = []
            let retry = DurableRetryPolicy(
                maxAttempts: plan.maxAttempts, wait: .constant(Double(plan.retryWaitMilliseconds) / 1_000))
            let poisonRetry = DurableRetryPolicy(
                maxAttempts: 2, wait: .constant(Double(plan.retryWaitMilliseconds) / 1_000))
            for index in 0..<plan.jobs {
                var input = DemoInput(
                    index: index, workMilliseconds: plan.workMilliseconds, failRate: plan.failRate,
                    failingAttempts: nil)
                if let most = plan.failAttempts {
                    input.failRate = 0
                    input.failingAttempts =
                        Double.random(in: 0..<1, using: &random) < plan.failRate
                        ? Int.random(in: 1...most, using: &random) : 0
                }
                if !hasDependents[index], plan.doomedRate > 0,
                    Double.random(in: 0..<1, using: &random) < plan.doomedRate
                {
                    input.failingAttempts = plan.maxAttempts
                }
                if plan.poisonRate > 0, Double.random(in: 0..<1, using: &random) < plan.poisonRate {
                    input.poisoned = true
                }
                input.label = plan.label
                let options = DurableJobOptions(
                    retry: input.poisoned == true ? poisonRetry : retry, queue: plan.queue)
                nodes.append(
                    graph.add(
                        DemoJob.self, input: input, options: options, after: dependencies[index].map { nodes[$0] }))
            }
            let enqueued = try queue.enqueue(graph)
            say("graph \(enqueued.id.rawValue)")
        }

        func work(_ plan: FleetOptions.WorkPlan) throws {
            let (name, concurrency, leaseMilliseconds) = (plan.worker, plan.concurrency, plan.leaseMilliseconds)
            try prepareEffects()
            DemoSettings.current.withLock {
                $0 = DemoSettings(
                    effectsTable: effectsTable, logStarts: plan.logStarts, ticksTable: ticksTable,
                    database: options.database, settingsTable: settingsTable)
            }
            try queue.register(DemoJob.self)
            try queue.register(TickJob.self)
            // Every worker declares the same tick; the one elected for maintenance enqueues each period's job.
            let ticks = try plan.tickMilliseconds.map { milliseconds in
                try DurablePeriodicJob(
                    name: "durable-fleet.tick", schedule: .every(.milliseconds(milliseconds)), TickJob.self, input: 0,
                    options: DurableJobOptions(
                        retry: DurableRetryPolicy(maxAttempts: 5, wait: .immediate),
                        queue: plan.queues[0]))
            }
            let coordinator = ShutdownCoordinator.shared
            coordinator.gracePeriod = .seconds(5)
            coordinator.cancellationPeriod = .seconds(2)
            coordinator.handleSignals([SIGTERM, SIGINT])
            let worker = try DurableWorker(
                queue: queue, name: name, concurrency: concurrency, leaseDuration: .milliseconds(leaseMilliseconds),
                pollInterval: .milliseconds(500), queues: plan.queues, periodicJobs: ticks.map { [$0] } ?? [],
                shutdownCoordinator: coordinator)
            try worker.start()
            say("worker \(name) ready pid=\(getpid())")
            let report = coordinator.syncWaitForShutdown()
            let stopped = worker.syncWaitUntilStopped(timeout: .seconds(10))
            let statistics = worker.statistics
            say(
                "worker \(name) stopped=\(stopped) claimed=\(statistics.claimed) completed=\(statistics.completed) "
                    + "failed=\(statistics.failed) released=\(statistics.released) "
                    + "leasesLost=\(statistics.leasesLost) reaped=\(statistics.reaped) shutdown=\(report.reason)")
        }

        func report(json: Bool) throws {
            try prepareEffects()
            let schema = queue.schema
            let kind = DemoJob.kind
            let (states, effects, duplicates, violations, ticks, duplicateTicks) = try queue.withTransaction {
                connection in
                var states: [String: Int] = [:]
                for row in try connection.execute(
                    "SELECT state, count(*) AS n FROM \(schema).jobs WHERE kind = $1 GROUP BY state", [kind]
                ).rows {
                    states[row["state"] ?? "?"] = Int(try row.int64("n"))
                }
                let effects = try connection.execute("SELECT count(*) AS n FROM \(effectsTable)").rows.first?.int64("n")
                let duplicates = try connection.execute(
                    "SELECT count(*) AS n FROM (SELECT job_id FROM \(effectsTable) GROUP BY job_id HAVING count(*) > 1) d"
                ).rows.first?.int64("n")
                // A dependent's effect must come after each dependency's (sequence order is commit order here:
                // a dependent is claimed only after its dependency's completing transaction committed).
                let violations = try connection.execute(
                    """
                    SELECT count(DISTINCT d.job_id) AS n
                    FROM \(schema).dependencies d
                    JOIN \(effectsTable) mine ON mine.job_id = d.job_id
                    LEFT JOIN \(effectsTable) theirs ON theirs.job_id = d.depends_on
                    JOIN \(schema).jobs dependent ON dependent.id = d.job_id AND dependent.kind = $1
                    WHERE theirs.seq IS NULL OR theirs.seq > mine.seq
                    """, [kind]
                ).rows.first?.int64("n")
                let ticks = try connection.execute("SELECT count(*) AS n FROM \(ticksTable)").rows.first?.int64("n")
                let duplicateTicks = try connection.execute(
                    "SELECT count(*) AS n FROM (SELECT period_at FROM \(ticksTable) GROUP BY period_at HAVING count(*) > 1) d"
                ).rows.first?.int64("n")
                return (states, effects ?? 0, duplicates ?? 0, violations ?? 0, ticks ?? 0, duplicateTicks ?? 0)
            }
            let total = states.values.reduce(0, +)
            if json {
                let stateList = states.keys.sorted().map { "\"\($0)\":\(states[$0]!)" }.joined(separator: ",")
                say(
                    "{\"total\":\(total),\"states\":{\(stateList)},\"effects\":\(effects),"
                        + "\"duplicateEffects\":\(duplicates),\"orderViolations\":\(violations),\"ticks\":\(ticks),"
                        + "\"duplicateTicks\":\(duplicateTicks)}")
            } else {
                say("total \(total)")
                for state in states.keys.sorted() { print("  \(state): \(states[state]!)") }
                say("effects \(effects), duplicate effects \(duplicates), order violations \(violations)")
                say("ticks \(ticks), duplicate ticks \(duplicateTicks)")
            }
        }
    }
#endif

#if Postgres
    /// Writes a line to standard output at once (a pipe would buffer `print`).
    func say(_ line: String) {
        FileHandle.standardOutput.write(Data((line + "\n").utf8))
    }
#endif
