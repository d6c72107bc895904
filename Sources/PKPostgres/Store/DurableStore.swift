#if Postgres
    import Foundation

    /// Every statement PKPostgres runs on its tables, one method each. Stateless: the caller owns the connection
    /// and, where a method says so, the transaction around it.
    ///
    /// Fencing: every statement that changes a running job names the lease token the claim handed out, so a
    /// worker whose lease expired (and whose job another worker may now run) changes nothing.
    package struct DurableStore: Sendable {
        let schema: DurableSchema

        /// A job as a claim hands it to a worker.
        package struct ClaimedJob: Sendable {
            // `package` for the benchmark's claim-cost row (W22); the fields stay internal.
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
            /// The timeout given at enqueue, if any (else the kind's applies).
            let timeout: Duration?
            /// For a job a periodic schedule enqueued, the time of its period.
            var periodStart: Date? = nil
            /// The named queue it was claimed from.
            var queue = DurableJobOptions.defaultQueue
        }

        /// A new job, ready to insert.
        struct NewJob: Sendable {
            let kind: String
            let input: String?
            let options: DurableJobOptions
            let graph: GraphID?
            /// For a job a periodic schedule enqueues, the time of its period.
            var periodStart: Date? = nil
        }

        // MARK: - Enqueue

        /// Inserts `job`; call inside a transaction. Returns the new id, or the existing job's for a taken unique
        /// key.
        func insert(_ job: NewJob, _ connection: PostgresConnection) throws -> JobID {
            try insertReporting(job, connection).id
        }

        /// ``insert(_:_:)``, and whether it made a new job (`false`: the unique key was taken, and `id` is the job
        /// holding it).
        func insertReporting(_ job: NewJob, _ connection: PostgresConnection) throws -> (id: JobID, isNew: Bool) {
            let dependencies = job.options.allDependencies
            var pending = 0
            var doomed = false
            if !dependencies.isEmpty {
                // FOR KEY SHARE waits for a dependency's change to a final state (every one locks the row FOR
                // UPDATE first), so its state is final or it will see our edge when it settles its dependents; it
                // does not stop the dependency's lease from being renewed (FOR NO KEY UPDATE) meanwhile.
                let rows = try connection.execute(
                    "SELECT id, state FROM \(schema.jobs) WHERE id = ANY($1::bigint[]) FOR KEY SHARE",
                    [DurableSchema.integerArray(dependencies.map(\.rawValue))]
                ).rows
                let states = try Dictionary(
                    rows.map {
                        (JobID(rawValue: try $0.int64("id")), JobState(databaseValue: $0["state"] ?? "") ?? .blocked)
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
            // `scheduled` when its start is still to come (the claim makes it `available` then).
            let state = doomed ? "cancelled" : pending > 0 ? "blocked" : "available"
            let timeout = job.options.timeout.map { String($0.timeInterval) }
            let retry = String(decoding: try JSONEncoder().encode(job.options.retry), as: UTF8.self)
            let runAt = job.options.runAt.map { String($0.timeIntervalSince1970) }
            let uniqueKey =
                try job.options.unique.map { try self.uniqueKey(job, $0, connection) } ?? job.options.uniqueKey
            let parameters: [String?] = [
                job.kind, state, String(job.options.priority), runAt, job.input,
                job.options.inputFrom.map { String($0.rawValue) }, String(job.options.retry.maxAttempts), retry,
                uniqueKey, job.graph.map { String($0.rawValue) }, String(pending),
                job.options.ignoreFailedDependencies ? "true" : "false",
                DurableSchema.textArray(Array(Set(job.options.exclusiveCategories)).sorted()), timeout,
                job.options.queue, job.periodStart.map { String($0.timeIntervalSince1970) },
                job.options.unique.map { String($0.stateBits) },
                job.options.metadata.isEmpty ? nil : DurableJobOptions.metadataJSON(job.options.metadata),
            ]
            // A unique key taken: the existing job's id. It may leave the states that keep its key (finish, or be
            // pruned) between the insert that met it and the look for it: then the insert is tried again.
            for _ in 0..<3 {
                if let row = try connection.execute(insertStatement, parameters).rows.first {
                    return (try inserted(row, kind: job.kind, dependencies: dependencies, connection), true)
                }
                let existing = try connection.execute(
                    """
                    SELECT id FROM \(schema.jobs)
                    WHERE unique_key = $1 AND \(schema.name).keeps_unique_key(unique_states, state)
                    """, [uniqueKey])
                if let row = existing.rows.first { return (JobID(rawValue: try row.int64("id")), false) }
            }
            throw PostgresError(kind: .unexpectedResult, message: "unique key conflict without a job")
        }

        /// The insert of ``insert(_:_:)``: parameters $1 to $16 are the columns, $17 the bits of the states that
        /// keep the unique key, $18 the metadata. Returns nothing when the unique key is taken.
        private var insertStatement: String {
            """
            INSERT INTO \(schema.jobs) (kind, state, priority, run_at, input, input_from, max_attempts, retry,
                unique_key, graph_id, pending_dependencies, ignore_failed_dependencies, categories, finished_at,
                errors, timeout_seconds, queue, period_at, unique_states, metadata)
            SELECT $1, CASE WHEN $2 = 'available' AND t.run_at > now() THEN 'scheduled' ELSE $2 END,
                $3::integer, t.run_at, $5::jsonb, $6::bigint, $7::integer, $8::jsonb, $9, $10::bigint, $11::integer, $12::boolean, $13::text[], CASE WHEN $2 = 'cancelled' THEN now() END,
                CASE WHEN $2 = 'cancelled' THEN '["a dependency failed or was cancelled"]'::jsonb
                     ELSE '[]'::jsonb END,
                $14::float8, $15, to_timestamp($16::float8), $17::integer, coalesce($18::jsonb, '{}'::jsonb)
            FROM (SELECT coalesce(to_timestamp($4::float8), now()) AS run_at) t
            ON CONFLICT \(schema.uniqueConflictTarget) DO NOTHING
            RETURNING id, state
            """
        }

        /// The unique key of a job enqueued with `unique`, made by the database: the period is counted by its clock,
        /// from the job's start or the transaction's time (`now()`), and the input compared as `jsonb`.
        private func uniqueKey(_ job: NewJob, _ unique: DurableUniqueness, _ connection: PostgresConnection) throws
            -> String
        {
            let row = try connection.execute(
                """
                SELECT $1 || CASE WHEN $2::float8 IS NULL THEN ''
                        ELSE chr(31) || 'period=' || floor(extract(epoch FROM coalesce(to_timestamp($3::float8), now()))
                            / $2::float8)::bigint END
                    || CASE WHEN $4::boolean THEN chr(31) || 'input=' || md5(coalesce($5::jsonb::text, 'null'))
                            ELSE '' END AS key
                """,
                [
                    unique.keyPrefix(kind: job.kind, queue: job.options.queue),
                    unique.period.map { String($0.timeInterval) },
                    job.options.runAt.map { String($0.timeIntervalSince1970) },
                    unique.byInput ? "true" : "false", unique.byInput ? job.input : nil,
                ]
            ).rows.first
            guard let key = row?["key"] else {
                throw PostgresError(kind: .unexpectedResult, message: "no unique key was made")
            }
            return key
        }

        /// Finishes the insert of a new job: its dependency edges, and the notification its state calls for.
        private func inserted(
            _ row: PostgresRow, kind: String, dependencies: [JobID], _ connection: PostgresConnection
        ) throws -> JobID {
            let id = JobID(rawValue: try row.int64("id"))
            if !dependencies.isEmpty {
                try connection.execute(
                    "INSERT INTO \(schema.dependencies) (job_id, depends_on) SELECT $1::bigint, unnest($2::bigint[])",
                    [String(id.rawValue), DurableSchema.integerArray(dependencies.map(\.rawValue))])
            }
            switch row["state"] {
            case "available": try notify(schema.jobsChannel, kind, connection)
            case "cancelled": try notify(schema.finishedChannel, String(id.rawValue), connection)
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

        /// Tells the dependents of a finished job (`settle_dependents`, transitively); call inside a transaction.
        func settleDependents(of id: JobID, succeeded: Bool, _ connection: PostgresConnection) throws {
            try connection.execute(
                "SELECT \(schema.name).settle_dependents($1::bigint, $2::boolean)",
                [String(id.rawValue), succeeded ? "true" : "false"])
        }

        func notify(_ channel: String, _ payload: String, _ connection: PostgresConnection) throws {
            try connection.execute("SELECT pg_notify($1, $2)", [channel, payload])
        }
    }
#endif
