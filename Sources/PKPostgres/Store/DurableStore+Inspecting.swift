#if Postgres
    import Foundation

    /// The statements behind what the dashboard shows besides listings: dependency graphs, workers, periodic jobs
    /// and the finished jobs per minute.
    extension DurableStore {
        /// The jobs `id` depends on, transitively, and those depending on it, at most `limit` in all.
        func dependencyGraph(of id: JobID, limit: Int, _ connection: PostgresConnection) throws
            -> DurableDependencyGraph?
        {
            guard try snapshot(of: id, connection) != nil else { return nil }
            // Both ways; a job reached by several paths takes its longest (so that every edge points from a lower
            // depth to a higher one, and a drawing by depth has no edge inside a column). `limit + 1` tells
            // truncation.
            let rows = try connection.execute(
                """
                WITH RECURSIVE up(id, depth) AS (
                    SELECT $1::bigint, 0
                    UNION
                    SELECT d.depends_on, up.depth - 1 FROM \(schema.dependencies) d JOIN up ON d.job_id = up.id
                    WHERE up.depth > -100),
                down(id, depth) AS (
                    SELECT $1::bigint, 0
                    UNION
                    SELECT d.job_id, down.depth + 1 FROM \(schema.dependencies) d JOIN down ON d.depends_on = down.id
                    WHERE down.depth < 100),
                reached AS (
                    SELECT id, min(depth) AS depth FROM up GROUP BY id
                    UNION ALL
                    SELECT id, max(depth) FROM down WHERE id <> $1::bigint GROUP BY id)
                SELECT j.id, j.kind, j.state, r.depth FROM reached r JOIN \(schema.jobs) j ON j.id = r.id
                ORDER BY abs(r.depth), j.id LIMIT $2::integer
                """, [String(id.rawValue), String(limit + 1)]
            ).rows
            var nodes: [DurableDependencyGraph.Node] = []
            for row in rows.prefix(limit) {
                guard let state = JobState(databaseValue: row["state"] ?? "") else { continue }
                nodes.append(
                    .init(
                        id: JobID(rawValue: try row.int64("id")), kind: row["kind"] ?? "", state: state,
                        depth: Int(try row.int64("depth"))))
            }
            let ids = nodes.map(\.id.rawValue)
            let edges = try connection.execute(
                """
                SELECT job_id, depends_on FROM \(schema.dependencies)
                WHERE job_id = ANY ($1::bigint[]) AND depends_on = ANY ($1::bigint[]) ORDER BY depends_on, job_id
                """, [DurableSchema.integerArray(ids)]
            ).rows.map {
                DurableDependencyGraph.Edge(
                    job: JobID(rawValue: try $0.int64("job_id")), dependsOn: JobID(rawValue: try $0.int64("depends_on"))
                )
            }
            return DurableDependencyGraph(root: id, nodes: nodes, edges: edges, isTruncated: rows.count > limit)
        }

        /// The workers whose heartbeats wrote their rows, by name, with the jobs each holds.
        func workers(_ connection: PostgresConnection) throws -> [DurableWorkerStatus] {
            var running: [String: [DurableWorkerStatus.RunningJob]] = [:]
            for row in try connection.execute(
                """
                SELECT id, kind, queue, lease_owner, extract(epoch FROM lease_expires_at)::float8 AS expires
                FROM \(schema.jobs) WHERE state = 'running' AND lease_owner IS NOT NULL ORDER BY id
                """
            ).rows {
                guard let owner = row["lease_owner"] else { continue }
                running[owner, default: []].append(
                    .init(
                        id: JobID(rawValue: try row.int64("id")), kind: row["kind"] ?? "",
                        queue: row["queue"] ?? DurableJobOptions.defaultQueue,
                        leaseExpiresAt: Date(timeIntervalSince1970: row["expires"].flatMap(Double.init) ?? 0)))
            }
            return try connection.execute(
                """
                SELECT name, queues, concurrency, lease_seconds, extract(epoch FROM started_at)::float8 AS started,
                    extract(epoch FROM last_seen_at)::float8 AS seen
                FROM \(schema.name).workers ORDER BY name
                """
            ).rows.map { row in
                let name = row["name"] ?? ""
                return DurableWorkerStatus(
                    name: name, queues: DurableSchema.parseTextArray(row["queues"]),
                    concurrency: Int(try row.int64("concurrency")),
                    leaseSeconds: row["lease_seconds"].flatMap(Double.init) ?? 0,
                    startedAt: Date(timeIntervalSince1970: row["started"].flatMap(Double.init) ?? 0),
                    lastSeenAt: Date(timeIntervalSince1970: row["seen"].flatMap(Double.init) ?? 0),
                    running: running[name] ?? [])
            }
        }

        /// Writes a worker's row (its heartbeat).
        func workerSeen(
            _ name: String, queues: [String], concurrency: Int, lease: TimeInterval, _ connection: PostgresConnection
        ) throws {
            try connection.execute(
                """
                INSERT INTO \(schema.name).workers (name, queues, concurrency, lease_seconds)
                VALUES ($1, $2::text[], $3::integer, $4::float8)
                ON CONFLICT (name) DO UPDATE SET last_seen_at = now()
                """, [name, DurableSchema.textArray(queues), String(concurrency), String(lease)])
        }

        /// Deletes a worker's row (it stopped).
        func workerGone(_ name: String, _ connection: PostgresConnection) throws {
            try connection.execute("DELETE FROM \(schema.name).workers WHERE name = $1", [name])
        }

        /// Deletes the rows of workers silent for more than an hour (they died); returns how many.
        func forgetSilentWorkers(_ connection: PostgresConnection) throws -> Int {
            try connection.execute(
                "DELETE FROM \(schema.name).workers WHERE last_seen_at < now() - interval '1 hour'"
            ).affectedRows
        }

        /// The periodic jobs the fleet has seen, by name.
        func periodicJobs(_ connection: PostgresConnection) throws -> [DurablePeriodicStatus] {
            try connection.execute(
                """
                SELECT name, kind, schedule, extract(epoch FROM last_period_at)::float8 AS last,
                    extract(epoch FROM next_period_at)::float8 AS next
                FROM \(schema.name).periodic ORDER BY name
                """
            ).rows.map { row in
                DurablePeriodicStatus(
                    name: row["name"] ?? "", kind: row["kind"], schedule: row["schedule"],
                    lastPeriod: Date(timeIntervalSince1970: row["last"].flatMap(Double.init) ?? 0),
                    nextPeriod: row["next"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:)))
            }
        }

        /// Jobs finished per minute and queue over the last `minutes` minutes (this one included), oldest first.
        func throughput(minutes: Int, _ connection: PostgresConnection) throws -> [DurableThroughput] {
            try connection.execute(
                """
                SELECT extract(epoch FROM date_trunc('minute', finished_at))::float8 AS minute, queue,
                    count(*) FILTER (WHERE state = 'completed') AS completed,
                    count(*) FILTER (WHERE state = 'failed') AS failed,
                    count(*) FILTER (WHERE state = 'cancelled') AS cancelled
                FROM \(schema.jobs)
                WHERE finished_at >= date_trunc('minute', now()) - make_interval(mins => $1::integer - 1)
                GROUP BY 1, 2 ORDER BY 1, 2
                """, [String(minutes)]
            ).rows.map { row in
                DurableThroughput(
                    minute: Date(timeIntervalSince1970: row["minute"].flatMap(Double.init) ?? 0),
                    queue: row["queue"] ?? "", completed: Int(try row.int64("completed")),
                    failed: Int(try row.int64("failed")), cancelled: Int(try row.int64("cancelled")))
            }
        }
    }
#endif
