#if Postgres
    import Foundation

    /// Recording what happened to a running job, renewing leases, and reaping expired ones: every statement here
    /// that changes a running job is fenced by its lease token.
    extension DurableStore {
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
            try jobLeftRunning(id, now: .completed, kind: "", connection)
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
            try jobLeftRunning(id, now: state, kind: row["kind"] ?? "", connection)
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
            try jobLeftRunning(id, now: .cancelled, kind: "", connection)
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
            guard let row, let state = JobState(rawValue: row["state"] ?? "") else { return false }
            try jobLeftRunning(id, now: state, kind: row["kind"] ?? "", connection)
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
                // PostgreSQL delivers one notification per distinct channel and payload of a transaction.
                for row in rows {
                    guard let state = JobState(rawValue: row["state"] ?? "") else { continue }
                    try jobLeftRunning(
                        JobID(rawValue: try row.int64("id")), now: state, kind: row["kind"] ?? "", connection)
                }
                return rows.count
            }
        }
    }
#endif
