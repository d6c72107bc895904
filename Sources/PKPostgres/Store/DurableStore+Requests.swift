#if Postgres
    import Foundation

    /// Cancellation, pruning and the queries behind `DurableQueue`'s snapshots.
    extension DurableStore {
        // MARK: - Requests

        /// Cancels a job that has not started, or asks its worker to cancel it when it runs; runs its own
        /// transaction. Returns the job's state after the request.
        func cancel(_ id: JobID, reason: String, _ connection: PostgresConnection) throws -> JobState {
            try connection.transaction { connection in
                let cancelled = try connection.execute(
                    """
                    UPDATE \(schema.jobs) SET state = 'cancelled', finished_at = now(),
                        errors = errors || jsonb_build_array($2::text)
                    WHERE id = $1::bigint AND state IN ('blocked', 'available')
                    """, [String(id.rawValue), reason])
                if cancelled.affectedRows == 1 {
                    try settleDependents(of: id, succeeded: false, connection)
                    try notify(schema.finishedChannel, String(id.rawValue), connection)
                    return .cancelled
                }
                let requested = try connection.execute(
                    "UPDATE \(schema.jobs) SET cancel_requested = true WHERE id = $1::bigint AND state = 'running'",
                    [String(id.rawValue)])
                if requested.affectedRows == 1 {
                    try notify(schema.cancelChannel, String(id.rawValue), connection)
                    return .running
                }
                guard
                    let row = try connection.execute(
                        "SELECT state FROM \(schema.jobs) WHERE id = $1::bigint", [String(id.rawValue)]
                    ).rows.first, let state = JobState(rawValue: row["state"] ?? "")
                else { throw DurableError.jobNotFound(id) }
                return state
            }
        }

        /// Deletes finished jobs older than `age` seconds that no unfinished job depends on. Returns how many.
        func prune(olderThan age: TimeInterval, _ connection: PostgresConnection) throws -> Int {
            try connection.execute(
                """
                DELETE FROM \(schema.jobs) j
                WHERE j.finished_at < now() - make_interval(secs => $1::float8)
                    AND NOT EXISTS (SELECT 1 FROM \(schema.dependencies) d JOIN \(schema.jobs) k ON k.id = d.job_id
                                    WHERE d.depends_on = j.id AND k.finished_at IS NULL)
                """, [String(age)]
            ).affectedRows
        }

        // MARK: - Queries

        /// The job's row, or `nil`.
        func snapshot(of id: JobID, _ connection: PostgresConnection) throws -> DurableJobSnapshot? {
            try connection.execute(
                """
                SELECT id, kind, state, attempt, max_attempts, priority, extract(epoch FROM run_at)::float8 AS run_at,
                    extract(epoch FROM created_at)::float8 AS created_at,
                    extract(epoch FROM finished_at)::float8 AS finished_at, errors::text AS errors, lease_owner,
                    graph_id, output::text AS output, pending_dependencies, cancel_requested
                FROM \(schema.jobs) WHERE id = $1::bigint
                """, [String(id.rawValue)]
            ).rows.first.map(DurableJobSnapshot.init(row:))
        }

        /// How many jobs of the graph are in each state.
        func graphCounts(_ graph: GraphID, _ connection: PostgresConnection) throws -> [JobState: Int] {
            var counts: [JobState: Int] = [:]
            for row in try connection.execute(
                "SELECT state, count(*) AS n FROM \(schema.jobs) WHERE graph_id = $1::bigint GROUP BY state",
                [String(graph.rawValue)]
            ).rows {
                if let state = JobState(rawValue: row["state"] ?? "") { counts[state] = Int(try row.int64("n")) }
            }
            return counts
        }
    }
#endif
