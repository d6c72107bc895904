#if Postgres
    import Foundation

    /// The statements behind operating a queue (`DurableQueue+Operating`): listings, attempt histories, retrying,
    /// deleting and pruning jobs, pausing and resuming named queues, and counts.
    extension DurableStore {

        // MARK: - Reading

        /// The jobs `filter` matches, by id.
        func jobs(_ filter: DurableJobFilter, _ connection: PostgresConnection) throws -> [DurableJobSnapshot] {
            try connection.execute(
                """
                SELECT \(Self.snapshotColumns) FROM \(schema.jobs)
                WHERE \(Self.filterCondition) AND ($6::bigint IS NULL OR id > $6::bigint)
                ORDER BY id LIMIT $7::integer
                """, Self.filterParameters(filter) + [filter.afterID.map { String($0.rawValue) }, String(filter.limit)]
            ).rows.map(DurableJobSnapshot.init(row:))
        }

        /// The attempts of job `id` that started, in order.
        func attempts(of id: JobID, _ connection: PostgresConnection) throws -> [DurableAttempt] {
            try connection.execute(
                """
                SELECT \(Self.attemptColumns) FROM \(schema.name).attempts WHERE job_id = $1::bigint ORDER BY attempt
                """, [String(id.rawValue)]
            ).rows.map(DurableAttempt.init(row:))
        }

        /// The attempts of `ids` that ended with an error, by job.
        func failedAttempts(of ids: [JobID], _ connection: PostgresConnection) throws -> [JobID: [DurableAttempt]] {
            guard !ids.isEmpty else { return [:] }
            var attempts: [JobID: [DurableAttempt]] = [:]
            for row in try connection.execute(
                """
                SELECT job_id, \(Self.attemptColumns) FROM \(schema.name).attempts
                WHERE job_id = ANY ($1::bigint[]) AND error IS NOT NULL ORDER BY job_id, attempt
                """, [DurableSchema.integerArray(ids.map(\.rawValue))]
            ).rows {
                attempts[JobID(rawValue: try row.int64("job_id")), default: []].append(try DurableAttempt(row: row))
            }
            return attempts
        }

        /// Jobs by named queue and state, the paused queues, the oldest due job's age, the jobs running by worker and
        /// those finished in the last minute; in one read-only transaction (one snapshot).
        func queueStatistics(_ connection: PostgresConnection) throws -> DurableQueueStatistics {
            let outermost = !connection.isInTransaction
            return try connection.transaction { connection in
                if outermost { try connection.execute("SET TRANSACTION ISOLATION LEVEL REPEATABLE READ READ ONLY") }
                var counts: [String: [JobState: Int]] = [:]
                for row in try connection.execute(
                    "SELECT queue, state, count(*) AS n FROM \(schema.jobs) GROUP BY queue, state"
                ).rows {
                    guard let queue = row["queue"], let state = JobState(databaseValue: row["state"] ?? "") else {
                        continue
                    }
                    counts[queue, default: [:]][state, default: 0] += Int(try row.int64("n"))
                }
                let paused = try connection.execute(
                    "SELECT name FROM \(schema.name).queues WHERE paused ORDER BY name"
                ).rows.compactMap { $0["name"] }
                var oldest: [String: Duration] = [:]
                for row in try connection.execute(
                    """
                    SELECT queue, extract(epoch FROM now() - min(run_at))::float8 AS age FROM \(schema.jobs)
                    WHERE state IN ('available', 'waiting', 'scheduled') AND run_at <= now() GROUP BY queue
                    """
                ).rows {
                    guard let queue = row["queue"], let age = row["age"].flatMap(Double.init) else { continue }
                    oldest[queue] = .seconds(max(0, age))
                }
                var running: [String: Int] = [:]
                for row in try connection.execute(
                    """
                    SELECT lease_owner, count(*) AS n FROM \(schema.jobs)
                    WHERE state = 'running' AND lease_owner IS NOT NULL GROUP BY lease_owner
                    """
                ).rows {
                    guard let worker = row["lease_owner"] else { continue }
                    running[worker] = Int(try row.int64("n"))
                }
                var finished: [String: [JobState: Int]] = [:]
                for row in try connection.execute(
                    """
                    SELECT queue, state, count(*) AS n FROM \(schema.jobs)
                    WHERE finished_at > now() - interval '60 seconds' GROUP BY queue, state
                    """
                ).rows {
                    guard let queue = row["queue"], let state = JobState(databaseValue: row["state"] ?? "") else {
                        continue
                    }
                    finished[queue, default: [:]][state, default: 0] += Int(try row.int64("n"))
                }
                return DurableQueueStatistics(
                    counts: counts, paused: paused, oldestAvailableAge: oldest, runningByWorker: running,
                    finishedLastMinute: finished)
            }
        }

        // MARK: - Actions

        /// Makes the failed or cancelled jobs among `ids` available again, now, with one more attempt allowed when
        /// their attempts are spent; runs its own transaction. Returns the jobs retried.
        ///
        /// A job whose unique key another job holds (one that keeps it in its state, and is not retried here) is
        /// skipped, as are all but the first (by id) of jobs retried here that share a key: made available, they
        /// would be duplicates.
        func retry(_ ids: [JobID], _ connection: PostgresConnection) throws -> [JobID] {
            guard !ids.isEmpty else { return [] }
            return try connection.transaction { connection in
                let rows = try connection.execute(
                    """
                    WITH candidates AS (
                        -- FOR UPDATE, as every change of a final state.
                        SELECT id, unique_key FROM \(schema.jobs)
                        WHERE id = ANY ($1::bigint[]) AND state IN ('failed', 'cancelled')
                        ORDER BY id FOR UPDATE)
                    UPDATE \(schema.jobs) SET state = 'available', run_at = now(), finished_at = NULL,
                        cancel_requested = false, max_attempts = greatest(max_attempts, attempt + 1)
                    WHERE id IN (
                        SELECT c.id FROM candidates c
                        WHERE c.unique_key IS NULL OR (
                            c.id = (SELECT min(d.id) FROM candidates d WHERE d.unique_key = c.unique_key)
                            AND NOT EXISTS (
                                SELECT 1 FROM \(schema.jobs) o
                                WHERE o.unique_key = c.unique_key AND o.id NOT IN (SELECT id FROM candidates)
                                    AND \(schema.name).keeps_unique_key(o.unique_states, o.state))))
                    RETURNING id, kind
                    """, [DurableSchema.integerArray(ids.map(\.rawValue))]
                ).rows
                for kind in Set(rows.compactMap { $0["kind"] }).sorted() {
                    try notify(schema.jobsChannel, kind, connection)
                }
                return try rows.map { JobID(rawValue: try $0.int64("id")) }.sorted()
            }
        }

        /// The ids of the failed or cancelled jobs `filter` matches, by id, `batch` at a time after `after`.
        func retryable(_ filter: DurableJobFilter, after: JobID?, batch: Int, _ connection: PostgresConnection)
            throws -> [JobID]
        {
            try connection.execute(
                """
                SELECT id FROM \(schema.jobs)
                WHERE \(Self.filterCondition) AND state IN ('failed', 'cancelled')
                    AND ($6::bigint IS NULL OR id > $6::bigint)
                ORDER BY id LIMIT $7::integer
                """, Self.filterParameters(filter) + [after.map { String($0.rawValue) }, String(batch)]
            ).rows.map { JobID(rawValue: try $0.int64("id")) }
        }

        /// Deletes the jobs among `ids` that are not running and that no unfinished job depends on; runs its own
        /// transaction. Returns the jobs deleted.
        func delete(_ ids: [JobID], _ connection: PostgresConnection) throws -> [JobID] {
            guard !ids.isEmpty else { return [] }
            return try connection.transaction { connection in
                // Locked first (FOR UPDATE, as pruning does): an enqueue naming one as a dependency holds it
                // FOR KEY SHARE until it commits, and is then either seen below or told the dependency is gone.
                try connection.execute(
                    "SELECT id FROM \(schema.jobs) WHERE id = ANY ($1::bigint[]) ORDER BY id FOR UPDATE",
                    [DurableSchema.integerArray(ids.map(\.rawValue))])
                let rows = try connection.execute(
                    """
                    DELETE FROM \(schema.jobs) j WHERE j.id = ANY ($1::bigint[]) AND j.state <> 'running'
                        AND NOT EXISTS (
                            SELECT 1 FROM \(schema.dependencies) d JOIN \(schema.jobs) k ON k.id = d.job_id
                            WHERE d.depends_on = j.id AND k.finished_at IS NULL AND k.id <> ALL ($1::bigint[]))
                    RETURNING j.id
                    """, [DurableSchema.integerArray(ids.map(\.rawValue))]
                ).rows
                return try rows.map { JobID(rawValue: try $0.int64("id")) }.sorted()
            }
        }

        /// Pauses or resumes the named queue fleet-wide; a resumed queue's workers are woken.
        func setPaused(_ paused: Bool, queue: String, _ connection: PostgresConnection) throws {
            try connection.transaction { connection in
                try connection.execute(
                    """
                    INSERT INTO \(schema.name).queues (name, paused) VALUES ($1, $2::boolean)
                    ON CONFLICT (name) DO UPDATE SET paused = EXCLUDED.paused, changed_at = now()
                    """, [queue, paused ? "true" : "false"])
                if !paused {
                    try connection.execute(
                        """
                        SELECT pg_notify($2, k.kind) FROM (
                            SELECT DISTINCT kind FROM \(schema.jobs) WHERE queue = $1 AND state = 'available') k
                        """, [queue, schema.jobsChannel])
                }
            }
        }

        /// Sets the most jobs of the named queue running at once across the fleet; `nil` lifts the limit.
        func setConcurrencyLimit(_ limit: Int?, queue: String, _ connection: PostgresConnection) throws {
            try connection.execute(
                """
                INSERT INTO \(schema.name).queues (name, max_running) VALUES ($1, $2::integer)
                ON CONFLICT (name) DO UPDATE SET max_running = EXCLUDED.max_running, changed_at = now()
                """, [queue, limit.map(String.init)])
        }

        // MARK: - Helpers

        /// The columns a ``DurableAttempt`` is read from.
        static let attemptColumns = """
            attempt, worker, extract(epoch FROM started_at)::float8 AS started_at,
                extract(epoch FROM finished_at)::float8 AS finished_at, outcome, error
            """

        /// A filter's conditions, on parameters $1 to $5 (``filterParameters(_:)``).
        static let filterCondition = """
            ($1::text[] IS NULL OR state = ANY ($1::text[])) AND ($2::text[] IS NULL OR kind = ANY ($2::text[]))
                AND ($3::text[] IS NULL OR queue = ANY ($3::text[]))
                AND ($4::float8 IS NULL OR created_at >= to_timestamp($4::float8))
                AND ($5::float8 IS NULL OR created_at < to_timestamp($5::float8))
            """

        static func filterParameters(_ filter: DurableJobFilter) -> [String?] {
            [
                filter.states.isEmpty ? nil : DurableSchema.textArray(filter.databaseStates),
                filter.kinds.isEmpty ? nil : DurableSchema.textArray(filter.kinds),
                filter.queues.isEmpty ? nil : DurableSchema.textArray(filter.queues),
                filter.createdAfter.map { String($0.timeIntervalSince1970) },
                filter.createdBefore.map { String($0.timeIntervalSince1970) },
            ]
        }
    }
#endif
