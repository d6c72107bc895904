// W16 and W17: PKPostgres against a real server (Scripts/postgres.sh), when built with the Postgres trait and given
// PK_POSTGRES_URL by Scripts/bench.sh. Each repetition enqueues its jobs untimed, then times only their processing.
import Foundation

#if Postgres
    import Dispatch
    import PKCore
    import PKPostgres
    import Synchronization

    /// The benchmark's job input and output: nothing but the time it was enqueued (for pickup latency).
    struct BenchStamp: Codable, Sendable {
        var enqueuedAt: UInt64 = 0
    }

    /// Pickup latencies recorded by ``BenchJob`` (nanoseconds).
    let pickupLatencies = Mutex<[UInt64]>([])

    /// A job that does nothing but note how long it waited since its enqueue.
    final class BenchJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`) is behind its Mutexes.
        static let kind = "bench.noop"
        private let inputValue = Mutex<Pending<BenchStamp>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<BenchStamp>>>(.pending)

        var input: Pending<BenchStamp> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<BenchStamp>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() {
            let stamp = input.value ?? BenchStamp()
            if stamp.enqueuedAt > 0 {
                let waited = DispatchTime.now().uptimeNanoseconds - stamp.enqueuedAt
                pickupLatencies.withLock { $0.append(waited) }
            }
            finish(withResult: .success(stamp))
        }
    }

    /// A fresh schema for one workload, dropped by ``drop()``.
    struct DurableBench {
        let url: String
        let schema = "bench_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
        let queue: DurableQueue

        init(url: String) throws {
            self.url = url
            queue = try DurableQueue(connectionString: url, schema: schema)
            try queue.register(BenchJob.self)
            _ = try queue.withTransaction { _ in 0 }  // creates the schema
        }

        func drop() {
            _ = try? PostgresConnection(url).execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }

        /// Inserts `count` available no-op jobs in one statement (untimed setup).
        func insert(_ count: Int) throws {
            let retry = String(decoding: try JSONEncoder().encode(DurableRetryPolicy.never), as: UTF8.self)
            try PostgresConnection(url).execute(
                """
                INSERT INTO \(schema).jobs (kind, state, input, retry)
                SELECT $1, 'available', '{"enqueuedAt":0}'::jsonb, $2::jsonb FROM generate_series(1, $3::integer)
                """, [BenchJob.kind, retry, String(count)])
        }

        /// Runs `count` inserted jobs through `workers` DurableWorkers of `concurrency` each; returns seconds.
        func throughWorkers(_ count: Int, workers: Int, concurrency: Int) throws -> Double {
            let fleet = try (0..<workers).map { index in
                try DurableWorker(
                    queue: queue, name: "bench-\(index)", concurrency: concurrency, pollInterval: .milliseconds(50))
            }
            let start = DispatchTime.now().uptimeNanoseconds
            for worker in fleet { try worker.start() }
            while fleet.reduce(0, { $0 + $1.statistics.completed }) < count {
                Thread.sleep(forTimeInterval: 0.001)
            }
            let seconds = Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
            for worker in fleet { worker.shutdown(gracePeriod: .zero) }
            for worker in fleet { _ = worker.syncWaitUntilStopped(timeout: .seconds(30)) }
            return seconds
        }

        /// The floor: a hand-written claim and complete, from `threads` bare loops, one connection each (the
        /// statements the worker ran before its claim and outcomes became functions of the schema's).
        func bareLoop(_ count: Int, threads: Int, batch: Int) throws -> Double {
            let done = Atomic<Int>(0)
            let group = DispatchGroup()
            let schema = self.schema
            let url = self.url
            let start = DispatchTime.now().uptimeNanoseconds
            for index in 0..<threads {
                group.enter()
                Thread {
                    defer { group.leave() }
                    guard let connection = try? PostgresConnection(url) else { return }
                    while done.load(ordering: .relaxed) < count {
                        guard
                            let claimed = try? Self.bareClaim(connection, schema, batch: batch, owner: "bare-\(index)"),
                            !claimed.isEmpty
                        else { continue }
                        for (id, token) in claimed {
                            if (try? Self.bareComplete(connection, schema, id: id, token: token)) == true {
                                done.add(1, ordering: .relaxed)
                            }
                        }
                    }
                }.start()
            }
            group.wait()
            return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
        }

        private static func bareClaim(_ connection: PostgresConnection, _ schema: String, batch: Int, owner: String)
            throws -> [(String, String)]
        {
            // One statement, as a hand-written loop would claim (no transaction around it); one kind, so that it
            // walks the claim index in order.
            try connection.execute(
                """
                WITH next AS (
                    SELECT id FROM \(schema).jobs
                    WHERE state = 'available' AND run_at <= now() AND kind = $1
                        AND (cardinality(categories) = 0 OR NOT categories &&
                            coalesce((SELECT array_agg(category) FROM \(schema).exclusive_categories), '{}'::text[]))
                    ORDER BY priority DESC, run_at, id
                    LIMIT $2::integer
                    FOR UPDATE SKIP LOCKED)
                UPDATE \(schema).jobs j
                SET state = 'running', attempt = j.attempt + 1, lease_owner = $3,
                    lease_token = nextval('\(schema).lease_tokens'),
                    lease_expires_at = now() + make_interval(secs => 30), started_at = now()
                FROM next WHERE j.id = next.id
                RETURNING j.id, j.lease_token, j.input::text AS input
                """, [BenchJob.kind, String(batch), owner]
            ).rows.map { ($0["id"] ?? "", $0["lease_token"] ?? "") }
        }

        private static func bareComplete(_ connection: PostgresConnection, _ schema: String, id: String, token: String)
            throws -> Bool
        {
            try connection.transaction { connection in
                let updated = try connection.execute(
                    """
                    UPDATE \(schema).jobs SET state = 'completed', output = $3::jsonb, finished_at = now(),
                        lease_owner = NULL, lease_expires_at = NULL
                    WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                    """, [id, token, "{\"enqueuedAt\":0}"])
                try connection.execute("DELETE FROM \(schema).exclusive_categories WHERE job_id = $1::bigint", [id])
                try connection.execute(
                    """
                    UPDATE \(schema).jobs j SET pending_dependencies = j.pending_dependencies - 1
                    FROM \(schema).dependencies d WHERE d.depends_on = $1::bigint AND d.job_id = j.id AND j.state = 'blocked'
                    """, [id])
                try connection.execute("SELECT pg_notify($1, $2)", ["\(schema)_finished", id])
                return updated.affectedRows == 1
            }
        }

        /// Enqueues `samples` jobs one at a time to an idle worker and returns the pickup latencies (enqueue call
        /// → execute start), in milliseconds, sorted.
        func pickupLatencies(samples: Int) throws -> [Double] {
            let worker = try DurableWorker(queue: queue, name: "bench-latency", concurrency: 1)
            try worker.start()
            defer {
                worker.shutdown(gracePeriod: .zero)
                _ = worker.syncWaitUntilStopped(timeout: .seconds(30))
            }
            PKBenchmarks.pickupLatencies.withLock { $0.removeAll() }
            Thread.sleep(forTimeInterval: 0.2)  // the worker is listening and idle
            for sample in 0..<samples {
                _ = try queue.enqueue(
                    BenchJob.self, input: BenchStamp(enqueuedAt: DispatchTime.now().uptimeNanoseconds))
                while PKBenchmarks.pickupLatencies.withLock({ $0.count }) <= sample {
                    Thread.sleep(forTimeInterval: 0.0005)
                }
                Thread.sleep(forTimeInterval: 0.01)  // idle again
            }
            return PKBenchmarks.pickupLatencies.withLock { $0 }.map { Double($0) / 1e6 }.sorted()
        }
    }
#endif

/// W16 to W18: durable jobs on PostgreSQL, when the benchmark is built with the Postgres trait and
/// Scripts/bench.sh gave it a server (PK_POSTGRES_URL); otherwise a message says they were skipped.
@MainActor func runDurableWorkloads() {
    guard ["W16", "W17", "W18", "W22", "W23", "W24", "W25"].contains(where: selected) else { return }
    #if Postgres
        guard let url = ProcessInfo.processInfo.environment["PK_POSTGRES_URL"], !url.isEmpty else {
            FileHandle.standardError.write(Data("W16-W18, W22-W25 skipped: PK_POSTGRES_URL is not set\n".utf8))
            return
        }
        do {
            let bench = try DurableBench(url: url)
            defer { bench.drop() }
            if selected("W16") { try measureThroughput(bench) }
            if selected("W17") { try measurePickupLatency(bench) }
        } catch {
            FileHandle.standardError.write(Data("W16/W17 failed: \(error)\n".utf8))
        }
        if selected("W18") { measureRecovery(url: url) }
        if selected("W22") {
            do {
                try measureClaimCost(url: url)
            } catch {
                FileHandle.standardError.write(Data("W22 failed: \(error)\n".utf8))
            }
        }
        if selected("W24") {
            do {
                try measureFleetScale(url: url)
            } catch {
                FileHandle.standardError.write(Data("W24 failed: \(error)\n".utf8))
            }
        }
        if selected("W25") {
            do {
                try measureClaimCost(url: url, crowd: .otherQueues)
            } catch {
                FileHandle.standardError.write(Data("W25 failed: \(error)\n".utf8))
            }
        }
        if selected("W23") {
            do {
                try measureBatchInsert(url: url)
            } catch {
                FileHandle.standardError.write(Data("W23 failed: \(error)\n".utf8))
            }
        }
    #else
        FileHandle.standardError.write(Data("W16-W18, W22-W25 skipped: built without the Postgres trait\n".utf8))
    #endif
}

#if Postgres
    /// W16: no-op jobs through four workers against the bare loop, alternately.
    @MainActor private func measureThroughput(_ bench: DurableBench) throws {
        let jobs = quick ? 1_000 : 10_000
        let names = ["4 DurableWorkers × 4", "bare libpq loop, 4 connections (floor)"]
        var results = names.map { Measurement(contender: $0) }
        for _ in 0..<(quick ? 1 : 3) {
            try bench.insert(jobs)
            results[0].seconds.append(try bench.throughWorkers(jobs, workers: 4, concurrency: 4))
            try bench.insert(jobs)
            results[1].seconds.append(try bench.bareLoop(jobs, threads: 4, batch: 4))
        }
        let w16 = Workload(
            id: "W16", title: "\(jobs) no-op durable jobs (PostgreSQL)", operations: jobs, contenders: [],
            target: { m in
                let r = ratio(m, names[1], names[0])
                let perSecond = Double(jobs) / (m[names[0]] ?? .nan)
                return (String(format: "≥0.8×floor (%.2f), %.0f jobs/s", r, perSecond), r >= 0.8)
            })
        report(w16, results)
    }

    /// W17: enqueue → execute on an idle worker.
    @MainActor private func measurePickupLatency(_ bench: DurableBench) throws {
        let samples = quick ? 30 : 200
        let latencies = try bench.pickupLatencies(samples: samples)
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        rows.append(
            Row(
                workload: "W17 pickup latency, enqueue → execute, idle worker (PostgreSQL)",
                contender: "DurableWorker, LISTEN/NOTIFY", operations: samples, medianSeconds: p50 / 1_000,
                microsecondsPerOperation: p50 * 1_000,
                target: String(format: "p50 ≤ 10 ms (p50 %.2f ms, p99 %.2f ms)", p50, p99), met: p50 <= 10))
    }

#endif
