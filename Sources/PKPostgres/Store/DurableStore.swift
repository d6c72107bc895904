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

        // MARK: - Claim

        /// Claims up to `limit` available jobs of `kinds` for `owner`, with leases of `lease` seconds. Jobs with
        /// exclusive categories are claimed only when all their categories are free.
        ///
        /// The claim is one statement (atomic without a transaction: one round trip). A claimed job with categories
        /// then takes them in a transaction of its own, fenced by its new token, or is given back when another job
        /// holds one: until then it runs nowhere, so two jobs sharing a category never both run.
        func claim(kinds: [String], limit: Int, owner: String, lease: TimeInterval, _ connection: PostgresConnection)
            throws -> [ClaimedJob]
        {
            guard limit > 0, !kinds.isEmpty else { return [] }
            do {  // no transaction: one statement
                let rows = try connection.execute(
                    """
                    WITH next AS (
                        SELECT id FROM \(schema.jobs)
                        WHERE state = 'available' AND run_at <= now() AND kind = ANY($1::text[])
                            AND (cardinality(categories) = 0 OR NOT categories &&
                                coalesce((SELECT array_agg(category) FROM \(schema.exclusive)), '{}'::text[]))
                        ORDER BY priority DESC, run_at, id
                        LIMIT $2::integer
                        FOR UPDATE SKIP LOCKED),
                    claimed AS (
                        UPDATE \(schema.jobs) j
                        SET state = 'running', attempt = j.attempt + 1, lease_owner = $3,
                            lease_token = nextval('\(schema.name).lease_tokens'),
                            lease_expires_at = now() + make_interval(secs => $4::float8), started_at = now()
                        FROM next WHERE j.id = next.id
                        RETURNING j.id, j.kind, j.attempt, j.max_attempts, j.lease_token, j.categories, j.graph_id,
                            j.retry::text AS retry, j.input_from, j.priority, j.run_at,
                            CASE WHEN j.input_from IS NULL THEN j.input::text
                                 ELSE (SELECT o.output::text FROM \(schema.jobs) o WHERE o.id = j.input_from)
                            END AS input)
                    -- UPDATE ... RETURNING keeps no order (a hash join returns table order): launch in claim order.
                    SELECT * FROM claimed ORDER BY priority DESC, run_at, id
                    """,
                    [DurableSchema.textArray(kinds), String(limit), owner, String(lease)]
                ).rows
                var claimed: [ClaimedJob] = []
                // Jobs of one batch mostly share a policy: decode each distinct one once.
                var policies: [String: DurableRetryPolicy] = [:]
                let decoder = JSONDecoder()
                for row in rows {
                    let id = try row.int64("id")
                    let token = try row.int64("lease_token")
                    let categories = DurableSchema.parseTextArray(row["categories"])
                    if try !categories.isEmpty && !takeCategories(categories, id: id, token: token, connection) {
                        continue
                    }
                    let policyText = row["retry"] ?? ""
                    let retry: DurableRetryPolicy
                    if let known = policies[policyText] {
                        retry = known
                    } else {
                        retry = try decoder.decode(DurableRetryPolicy.self, from: Data(policyText.utf8))
                        policies[policyText] = retry
                    }
                    claimed.append(
                        ClaimedJob(
                            id: JobID(rawValue: id), kind: row["kind"] ?? "", attempt: Int(try row.int64("attempt")),
                            maxAttempts: Int(try row.int64("max_attempts")), token: token,
                            graph: row["graph_id"].flatMap(Int64.init).map(GraphID.init(rawValue:)), retry: retry,
                            input: row["input"], inputFrom: row["input_from"].flatMap(Int64.init).map(JobID.init)))
                }
                return claimed
            }
        }

        /// Takes a claimed job's exclusive categories, or gives the job back (fenced by `token`) when another job
        /// holds one of them; runs its own transaction. Returns whether it took them.
        private func takeCategories(_ categories: [String], id: Int64, token: Int64, _ connection: PostgresConnection)
            throws -> Bool
        {
            try connection.transaction { connection in
                let taken = try connection.execute(
                    """
                    INSERT INTO \(schema.exclusive) (category, job_id, lease_token)
                    SELECT unnest($1::text[]), $2::bigint, $3::bigint ON CONFLICT DO NOTHING
                    """, [DurableSchema.textArray(categories), String(id), String(token)])
                guard taken.affectedRows < categories.count else { return true }
                // Another job holds one of them (claimed concurrently, or earlier in this batch).
                try connection.execute(
                    "DELETE FROM \(schema.exclusive) WHERE job_id = $1::bigint AND lease_token = $2::bigint",
                    [String(id), String(token)])
                try connection.execute(
                    """
                    UPDATE \(schema.jobs) SET state = 'available', attempt = attempt - 1, lease_owner = NULL,
                        lease_token = NULL, lease_expires_at = NULL, started_at = NULL
                    WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                    """, [String(id), String(token)])
                return false
            }
        }

        // MARK: - Outcomes (fenced by the lease token)

        /// Marks a running job completed with `output`; call inside a transaction. Returns `false`, changing
        /// nothing, when the lease is no longer this token's.
        func complete(_ id: JobID, token: Int64, output: String?, _ connection: PostgresConnection) throws -> Bool {
            let updated = try connection.execute(
                """
                UPDATE \(schema.jobs) SET state = 'completed', output = $3::jsonb, finished_at = now(),
                    lease_owner = NULL, lease_expires_at = NULL
                WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                """, [String(id.rawValue), String(token), output])
            guard updated.affectedRows == 1 else { return false }
            try releaseCategories(of: id, connection)
            try settleDependents(of: id, succeeded: true, connection)
            try notify(schema.finishedChannel, String(id.rawValue), connection)
            return true
        }

        /// Records a failed attempt; call inside a transaction. The job goes back to `available` after `delay`
        /// seconds while attempts remain and `permanent` is false, else to `failed` (or `cancelled` when a
        /// cancellation was requested meanwhile), cancelling its dependents.
        /// Returns the new state, or `nil` when the lease is no longer this token's.
        func fail(
            _ id: JobID, token: Int64, error: String, delay: TimeInterval, permanent: Bool,
            _ connection: PostgresConnection
        ) throws -> JobState? {
            let row = try connection.execute(
                """
                UPDATE \(schema.jobs) SET
                    state = CASE WHEN cancel_requested THEN 'cancelled'
                                 WHEN attempt < max_attempts AND NOT $4::boolean THEN 'available' ELSE 'failed' END,
                    run_at = CASE WHEN NOT cancel_requested AND attempt < max_attempts AND NOT $4::boolean
                                  THEN now() + make_interval(secs => $3::float8) ELSE run_at END,
                    finished_at = CASE WHEN NOT cancel_requested AND attempt < max_attempts AND NOT $4::boolean
                                       THEN NULL ELSE now() END,
                    errors = errors || jsonb_build_array($5::text),
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                RETURNING state, kind
                """, [String(id.rawValue), String(token), String(delay), permanent ? "true" : "false", error]
            ).rows.first
            guard let row, let state = JobState(rawValue: row["state"] ?? "") else { return nil }
            try releaseCategories(of: id, connection)
            if state.isFinished {
                try settleDependents(of: id, succeeded: false, connection)
                try notify(schema.finishedChannel, String(id.rawValue), connection)
            } else {
                try notify(schema.jobsChannel, row["kind"] ?? "", connection)
            }
            return state
        }

        /// Marks a running job cancelled (a cancellation was requested); call inside a transaction. Returns
        /// `false` when the lease is no longer this token's.
        func cancelRunning(_ id: JobID, token: Int64, reason: String, _ connection: PostgresConnection) throws -> Bool {
            let updated = try connection.execute(
                """
                UPDATE \(schema.jobs) SET state = 'cancelled', finished_at = now(), errors = errors || jsonb_build_array($3::text),
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                """, [String(id.rawValue), String(token), reason])
            guard updated.affectedRows == 1 else { return false }
            try releaseCategories(of: id, connection)
            try settleDependents(of: id, succeeded: false, connection)
            try notify(schema.finishedChannel, String(id.rawValue), connection)
            return true
        }

        /// Gives a running job back without spending its attempt (a worker shutting down), or records it cancelled
        /// when a cancellation was requested meanwhile; call inside a transaction. Returns `false` when the lease
        /// is no longer this token's.
        func release(_ id: JobID, token: Int64, _ connection: PostgresConnection) throws -> Bool {
            let row = try connection.execute(
                """
                UPDATE \(schema.jobs) SET
                    state = CASE WHEN cancel_requested THEN 'cancelled' ELSE 'available' END,
                    attempt = CASE WHEN cancel_requested THEN attempt ELSE attempt - 1 END,
                    finished_at = CASE WHEN cancel_requested THEN now() END,
                    errors = CASE WHEN cancel_requested THEN errors || '["cancelled by request"]'::jsonb ELSE errors END,
                    lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL, started_at = NULL
                WHERE id = $1::bigint AND lease_token = $2::bigint AND state = 'running'
                RETURNING kind, state
                """, [String(id.rawValue), String(token)]
            ).rows.first
            guard let row else { return false }
            try releaseCategories(of: id, connection)
            if row["state"] == JobState.cancelled.rawValue {
                try settleDependents(of: id, succeeded: false, connection)
                try notify(schema.finishedChannel, String(id.rawValue), connection)
            } else {
                try notify(schema.jobsChannel, row["kind"] ?? "", connection)
            }
            return true
        }

        /// Extends the leases of `jobs` (id and token) by `lease` seconds. Returns, for each job still held, whether
        /// a cancellation was requested; a job missing from the answer has lost its lease.
        func heartbeat(_ jobs: [(JobID, Int64)], lease: TimeInterval, _ connection: PostgresConnection) throws
            -> [JobID: Bool]
        {
            guard !jobs.isEmpty else { return [:] }
            let rows = try connection.execute(
                """
                UPDATE \(schema.jobs) j SET lease_expires_at = now() + make_interval(secs => $3::float8)
                FROM unnest($1::bigint[], $2::bigint[]) AS t(id, token)
                WHERE j.id = t.id AND j.lease_token = t.token AND j.state = 'running'
                RETURNING j.id, j.cancel_requested
                """,
                [
                    DurableSchema.integerArray(jobs.map(\.0.rawValue)), DurableSchema.integerArray(jobs.map(\.1)),
                    String(lease),
                ]
            ).rows
            var held: [JobID: Bool] = [:]
            for row in rows { held[JobID(rawValue: try row.int64("id"))] = try row.bool("cancel_requested") }
            return held
        }

        /// When this process wins the reaper's advisory lock, requeues (or fails, when attempts are spent, or
        /// cancels, when asked to) the running jobs whose leases expired; runs its own transaction. Returns how
        /// many it handled, or `nil` when another process is reaping.
        func reapExpiredLeases(_ connection: PostgresConnection) throws -> Int? {
            try connection.transaction { connection in
                let locked =
                    try connection.execute(
                        "SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked", [schema.reaperLockKey]
                    ).rows.first?.bool("locked") ?? false
                guard locked else { return nil }
                let rows = try connection.execute(
                    """
                    UPDATE \(schema.jobs) SET
                        state = CASE WHEN cancel_requested THEN 'cancelled'
                                     WHEN attempt < max_attempts THEN 'available' ELSE 'failed' END,
                        finished_at = CASE WHEN NOT cancel_requested AND attempt < max_attempts THEN NULL ELSE now() END,
                        errors = errors || jsonb_build_array('the lease of ' || coalesce(lease_owner, 'a worker')
                            || ' expired during attempt ' || attempt),
                        lease_owner = NULL, lease_token = NULL, lease_expires_at = NULL
                    WHERE state = 'running' AND lease_expires_at < now()
                    RETURNING id, state, kind
                    """
                ).rows
                var kinds = Set<String>()
                for row in rows {
                    let id = JobID(rawValue: try row.int64("id"))
                    try releaseCategories(of: id, connection)
                    if row["state"] == JobState.available.rawValue {
                        kinds.insert(row["kind"] ?? "")
                    } else {
                        try settleDependents(of: id, succeeded: false, connection)
                        try notify(schema.finishedChannel, String(id.rawValue), connection)
                    }
                }
                for kind in kinds { try notify(schema.jobsChannel, kind, connection) }
                return rows.count
            }
        }

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

        // MARK: - Helpers

        /// Frees the exclusive categories the job holds.
        private func releaseCategories(of id: JobID, _ connection: PostgresConnection) throws {
            try connection.execute("DELETE FROM \(schema.exclusive) WHERE job_id = $1::bigint", [String(id.rawValue)])
        }

        /// Tells the dependents of a finished job: each counts it as done when it succeeded (or when the dependent
        /// ignores failures), and becomes available at zero; otherwise the dependent is cancelled, and so on
        /// transitively. Iterative: a long chain does not recurse.
        private func settleDependents(of id: JobID, succeeded: Bool, _ connection: PostgresConnection) throws {
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

        private func notify(_ channel: String, _ payload: String, _ connection: PostgresConnection) throws {
            try connection.execute("SELECT pg_notify($1, $2)", [channel, payload])
        }
    }
#endif
