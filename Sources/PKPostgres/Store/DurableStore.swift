#if Postgres
    import Foundation

    /// Every statement PKPostgres runs on its tables, one method each. Stateless: the caller owns the connection
    /// and, where a method says so, the transaction around it.
    ///
    /// Fencing: every statement that changes a running job names the lease token the claim handed out, so a
    /// worker whose lease expired (and whose job another worker may now run) changes nothing.
    struct DurableStore: Sendable {
        let schema: DurableSchema

        /// A job as a claim hands it to a worker.
        struct ClaimedJob: Sendable {
            let id: JobID
            let kind: String
            let attempt: Int
            let maxAttempts: Int
            let token: Int64
            let graph: GraphID?
            let retry: DurableRetryPolicy
            /// The input's JSON; `nil` when its source job has no output.
            let input: String?
            let inputFrom: JobID?
        }

        /// A new job, ready to insert.
        struct NewJob: Sendable {
            let kind: String
            let input: String?
            let options: DurableJobOptions
            let graph: GraphID?
        }

        // MARK: - Enqueue

        /// Inserts `job`; call inside a transaction. Returns the new id, or the existing job's for a taken unique
        /// key.
        func insert(_ job: NewJob, _ connection: PostgresConnection) throws -> JobID {
            let dependencies = job.options.allDependencies
            var pending = 0
            var doomed = false
            if !dependencies.isEmpty {
                // FOR SHARE waits for a dependency's completing transaction, so its state is final or it will
                // see our edge when it settles its dependents.
                let rows = try connection.execute(
                    "SELECT id, state FROM \(schema.jobs) WHERE id = ANY($1::bigint[]) FOR SHARE",
                    [DurableSchema.integerArray(dependencies.map(\.rawValue))]
                ).rows
                let states = try Dictionary(
                    rows.map {
                        (JobID(rawValue: try $0.int64("id")), JobState(rawValue: $0["state"] ?? "") ?? .blocked)
                    },
                    uniquingKeysWith: { first, _ in first })
                for dependency in dependencies {
                    guard let state = states[dependency] else { throw DurableError.unknownDependency(dependency) }
                    switch state {
                    case .completed: break
                    case .failed, .cancelled:
                        if !job.options.ignoreFailedDependencies { doomed = true }
                    case .blocked, .available, .running: pending += 1
                    }
                }
            }
            let state: JobState = doomed ? .cancelled : pending > 0 ? .blocked : .available
            let retry = String(decoding: try JSONEncoder().encode(job.options.retry), as: UTF8.self)
            let runAt = job.options.runAt.map { String($0.timeIntervalSince1970) }
            let inserted = try connection.execute(
                """
                INSERT INTO \(schema.jobs) (kind, state, priority, run_at, input, input_from, max_attempts, retry,
                    unique_key, graph_id, pending_dependencies, ignore_failed_dependencies, categories, finished_at,
                    errors)
                VALUES ($1, $2, $3::integer, coalesce(to_timestamp($4::float8), now()), $5::jsonb, $6::bigint,
                    $7::integer, $8::jsonb, $9, $10::bigint, $11::integer, $12::boolean, $13::text[],
                    CASE WHEN $2 = 'cancelled' THEN now() END,
                    CASE WHEN $2 = 'cancelled' THEN '["a dependency failed or was cancelled"]'::jsonb
                         ELSE '[]'::jsonb END)
                ON CONFLICT (unique_key) DO NOTHING
                RETURNING id
                """,
                [
                    job.kind, state.rawValue, String(job.options.priority), runAt, job.input,
                    job.options.inputFrom.map { String($0.rawValue) }, String(job.options.retry.maxAttempts), retry,
                    job.options.uniqueKey, job.graph.map { String($0.rawValue) }, String(pending),
                    job.options.ignoreFailedDependencies ? "true" : "false",
                    DurableSchema.textArray(Array(Set(job.options.exclusiveCategories)).sorted()),
                ])
            guard let row = inserted.rows.first else {
                let existing = try connection.execute(
                    "SELECT id FROM \(schema.jobs) WHERE unique_key = $1", [job.options.uniqueKey])
                guard let row = existing.rows.first else {
                    throw PostgresError(kind: .unexpectedResult, message: "unique key conflict without a job")
                }
                return JobID(rawValue: try row.int64("id"))
            }
            let id = JobID(rawValue: try row.int64("id"))
            if !dependencies.isEmpty {
                try connection.execute(
                    "INSERT INTO \(schema.dependencies) (job_id, depends_on) SELECT $1::bigint, unnest($2::bigint[])",
                    [String(id.rawValue), DurableSchema.integerArray(dependencies.map(\.rawValue))])
            }
            switch state {
            case .available: try notify(schema.jobsChannel, job.kind, connection)
            case .cancelled: try notify(schema.finishedChannel, String(id.rawValue), connection)
            default: break
            }
            return id
        }

        /// A new graph number.
        func newGraph(_ connection: PostgresConnection) throws -> GraphID {
            let row = try connection.execute("SELECT nextval('\(schema.name).graph_ids') AS id").rows.first
            return GraphID(rawValue: try row?.int64("id") ?? 0)
        }

        // MARK: - Helpers

        /// What every outcome does once a job has left `running` for `state` (its lease cleared): frees its
        /// exclusive categories; a final state settles its dependents and tells waiters, `available` tells workers
        /// of `kind`.
        func jobLeftRunning(_ id: JobID, now state: JobState, kind: String, _ connection: PostgresConnection) throws {
            try releaseCategories(of: id, connection)
            if state.isFinished {
                try settleDependents(of: id, succeeded: state == .completed, connection)
                try notify(schema.finishedChannel, String(id.rawValue), connection)
            } else {
                try notify(schema.jobsChannel, kind, connection)
            }
        }

        /// Frees the exclusive categories the job holds.
        func releaseCategories(of id: JobID, _ connection: PostgresConnection) throws {
            try connection.execute("DELETE FROM \(schema.exclusive) WHERE job_id = $1::bigint", [String(id.rawValue)])
        }

        /// Tells the dependents of a finished job: each counts it as done when it succeeded (or when the dependent
        /// ignores failures), and becomes available at zero; otherwise the dependent is cancelled, and so on
        /// transitively. Iterative: a long chain does not recurse.
        func settleDependents(of id: JobID, succeeded: Bool, _ connection: PostgresConnection) throws {
            var work: [(JobID, Bool)] = [(id, succeeded)]
            var released = Set<String>()
            while let (job, ok) = work.popLast() {
                let ready = try connection.execute(
                    """
                    UPDATE \(schema.jobs) j SET pending_dependencies = j.pending_dependencies - 1,
                        state = CASE WHEN j.pending_dependencies <= 1 THEN 'available' ELSE 'blocked' END
                    FROM \(schema.dependencies) d
                    WHERE d.depends_on = $1::bigint AND d.job_id = j.id AND j.state = 'blocked'
                        AND ($2::boolean OR j.ignore_failed_dependencies)
                    RETURNING j.kind, j.state
                    """, [String(job.rawValue), ok ? "true" : "false"]
                ).rows
                for row in ready where row["state"] == JobState.available.rawValue {
                    released.insert(row["kind"] ?? "")
                }
                guard !ok else { continue }
                let cancelled = try connection.execute(
                    """
                    UPDATE \(schema.jobs) j SET state = 'cancelled', finished_at = now(),
                        errors = j.errors || jsonb_build_array('dependency ' || $1 || ' failed or was cancelled')
                    FROM \(schema.dependencies) d
                    WHERE d.depends_on = $1::bigint AND d.job_id = j.id AND j.state IN ('blocked', 'available')
                        AND NOT j.ignore_failed_dependencies
                    RETURNING j.id
                    """, [String(job.rawValue)]
                ).rows
                for row in cancelled {
                    let dependent = JobID(rawValue: try row.int64("id"))
                    try notify(schema.finishedChannel, String(dependent.rawValue), connection)
                    work.append((dependent, false))
                }
            }
            for kind in released { try notify(schema.jobsChannel, kind, connection) }
        }

        func notify(_ channel: String, _ payload: String, _ connection: PostgresConnection) throws {
            try connection.execute("SELECT pg_notify($1, $2)", [channel, payload])
        }
    }
#endif
