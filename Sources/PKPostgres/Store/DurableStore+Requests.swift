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
                    WHERE id IN (
                        -- FOR UPDATE, as every change to a final state: it waits for an enqueue naming the job.
                        SELECT id FROM \(schema.jobs)
                        WHERE id = $1::bigint AND state IN ('blocked', 'scheduled', 'available', 'waiting')
                        FOR UPDATE)
                    """, [String(id.rawValue), reason])
                if cancelled.affectedRows == 1 {
                    try connection.execute(
                        "DELETE FROM \(schema.name).category_waits WHERE job_id = $1::bigint", [String(id.rawValue)])
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
                    ).rows.first, let state = JobState(databaseValue: row["state"] ?? "")
                else { throw DurableError.jobNotFound(id) }
                return state
            }
        }

        /// Deletes finished jobs (of `states`, or any final state when empty) older than `age` seconds that no
        /// unfinished job depends on, in transactions of `batch` jobs each, oldest first. Returns how many.
        ///
        /// Each batch first locks its jobs (`FOR UPDATE SKIP LOCKED`), then deletes those without an unfinished
        /// dependent, reading the dependents afresh once the locks are held: an enqueue naming one of them as a
        /// dependency or input source holds it `FOR SHARE` until it commits, so it is either seen (and the job
        /// kept), skipped while it holds the row, or made to wait and then told the dependency is gone
        /// (``DurableError/unknownDependency(_:)``), never left with a deleted source.
        func prune(
            olderThan age: TimeInterval, states: [JobState] = [], batch: Int = 1_000, _ connection: PostgresConnection
        ) throws -> Int {
            let stateList = states.isEmpty ? nil : DurableSchema.textArray(states.map(\.rawValue).sorted())
            var total = 0
            var after: (finishedAt: String, id: String)?
            while true {
                let (deleted, last) = try connection.transaction { connection in
                    try pruneBatch(olderThan: age, states: stateList, batch: batch, after: after, connection)
                }
                total += deleted
                guard let last else { return total }
                after = (last.0, last.1)
            }
        }

        /// When this process is elected for maintenance (it holds the reaper's lock for the transaction), deletes
        /// one batch of finished jobs in `state` older than `age` seconds, after `after` (as ``prune(olderThan:states:batch:_:)``
        /// does). Returns how many, and where the next batch starts (`nil` when this was the last); `nil` when
        /// another process is elected.
        func pruneElected(
            state: JobState, olderThan age: TimeInterval, batch: Int, after: (finishedAt: String, id: String)?,
            _ connection: PostgresConnection
        ) throws -> (deleted: Int, next: (finishedAt: String, id: String)?)? {
            try connection.transaction { connection in
                guard try holdsReaperLock(connection) else { return nil }
                let (deleted, next) = try pruneBatch(
                    olderThan: age, states: DurableSchema.textArray([state.rawValue]), batch: batch, after: after,
                    connection)
                return (deleted, next.map { (finishedAt: $0.0, id: $0.1) })
            }
        }

        /// One batch of ``prune(olderThan:states:batch:_:)``, in the caller's transaction.
        private func pruneBatch(
            olderThan age: TimeInterval, states stateList: String?, batch: Int,
            after: (finishedAt: String, id: String)?, _ connection: PostgresConnection
        ) throws -> (Int, (String, String)?) {
            let locked = try connection.execute(
                """
                SELECT id, finished_at::text AS finished_at FROM \(schema.jobs)
                WHERE finished_at < now() - make_interval(secs => $1::float8)
                    AND ($3::timestamptz IS NULL OR (finished_at, id) > ($3::timestamptz, $4::bigint))
                    AND ($5::text[] IS NULL OR state = ANY ($5::text[]))
                ORDER BY finished_at, id LIMIT $2::integer
                FOR UPDATE SKIP LOCKED
                """, [String(age), String(batch), after?.finishedAt, after?.id, stateList]
            ).rows
            guard let last = locked.last, let lastAt = last["finished_at"], let lastID = last["id"] else {
                return (0, nil)
            }
            let deleted = try connection.execute(
                """
                DELETE FROM \(schema.jobs) j WHERE j.id = ANY ($1::bigint[])
                    AND NOT EXISTS (
                        SELECT 1 FROM \(schema.dependencies) d JOIN \(schema.jobs) k ON k.id = d.job_id
                        WHERE d.depends_on = j.id AND k.finished_at IS NULL)
                """, ["{" + locked.compactMap { $0["id"] }.joined(separator: ",") + "}"]
            ).affectedRows
            return (deleted, locked.count < batch ? nil : (lastAt, lastID))
        }

        // MARK: - Queries

        /// The job's row, or `nil`.
        func snapshot(of id: JobID, _ connection: PostgresConnection) throws -> DurableJobSnapshot? {
            try connection.execute(
                """
                SELECT \(Self.snapshotColumns) FROM \(schema.jobs) WHERE id = $1::bigint
                """, [String(id.rawValue)]
            ).rows.first.map(DurableJobSnapshot.init(row:))
        }

        /// The columns a ``DurableJobSnapshot`` is read from.
        static let snapshotColumns = """
            id, kind, queue, state, attempt, max_attempts, priority, extract(epoch FROM run_at)::float8 AS run_at,
                extract(epoch FROM created_at)::float8 AS created_at,
                extract(epoch FROM finished_at)::float8 AS finished_at, errors::text AS errors, lease_owner,
                graph_id, output::text AS output, input::text AS input, pending_dependencies, cancel_requested,
                metadata::text AS metadata,
                CASE WHEN state = 'completed' THEN 1 WHEN progress_attempt = attempt THEN progress END AS progress,
                CASE WHEN progress_attempt = attempt THEN progress_message END AS progress_message
            """

        /// How many jobs of the graph are in each state.
        func graphCounts(_ graph: GraphID, _ connection: PostgresConnection) throws -> [JobState: Int] {
            var counts: [JobState: Int] = [:]
            for row in try connection.execute(
                "SELECT state, count(*) AS n FROM \(schema.jobs) WHERE graph_id = $1::bigint GROUP BY state",
                [String(graph.rawValue)]
            ).rows {
                if let state = JobState(databaseValue: row["state"] ?? "") {
                    counts[state, default: 0] += Int(try row.int64("n"))
                }
            }
            return counts
        }
    }
#endif
