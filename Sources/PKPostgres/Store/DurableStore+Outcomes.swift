#if Postgres
    import Foundation

    /// Recording what happened to a running job, renewing leases, and reaping expired ones: every statement here
    /// that changes a running job is fenced by its lease token. Each outcome is one call of a function of the
    /// schema's (migration 2), which also frees the job's categories (waking a job that waits for one), settles
    /// its dependents and sends the notifications.
    extension DurableStore {
        // MARK: - Outcomes (fenced by the lease token)

        /// What a completion found.
        enum Completion: String {
            /// Recorded now: the caller's completion hook may add its changes to the transaction.
            case completed
            /// Recorded already by this same claim: an earlier attempt to record it committed, but its reply was
            /// lost. Nothing more to do (the hook ran in that transaction).
            case already
            /// The lease is no longer this token's: nothing was changed.
            case lost
        }

        /// Marks a running job completed with `output`; call inside a transaction.
        func complete(
            _ id: JobID, token: Int64, output: String?, starving: TimeInterval, _ connection: PostgresConnection
        ) throws -> Completion {
            let row = try connection.execute(
                "SELECT \(schema.name).complete_job($1::bigint, $2::bigint, $3::jsonb, $4::float8) AS done",
                [String(id.rawValue), String(token), output, String(starving)]
            ).rows.first
            return row?["done"].flatMap(Completion.init(rawValue:)) ?? .lost
        }

        /// Records a failed attempt; call inside a transaction. The job is due again after `delay` seconds while
        /// attempts remain and `permanent` is false, else `failed` (or `cancelled` when a cancellation was
        /// requested meanwhile), cancelling its dependents.
        /// Returns the new state, or `nil` when the lease is no longer this token's.
        func fail(
            _ id: JobID, token: Int64, error: String, delay: TimeInterval, permanent: Bool, starving: TimeInterval,
            _ connection: PostgresConnection
        ) throws -> JobState? {
            let row = try connection.execute(
                """
                SELECT \(schema.name).fail_job($1::bigint, $2::bigint, $3, $4::float8, $5::boolean, $6::float8)
                    AS state
                """,
                [
                    String(id.rawValue), String(token), error, String(delay), permanent ? "true" : "false",
                    String(starving),
                ]
            ).rows.first
            return row?["state"].flatMap(JobState.init(databaseValue:))
        }

        /// Puts a running job back to run again after `delay` seconds without spending its attempt, unless it was
        /// snoozed `most` times already (it fails then) or a cancellation was requested (it is cancelled). Returns
        /// the new state, or `nil` when the lease is no longer this token's.
        func snooze(
            _ id: JobID, token: Int64, delay: TimeInterval, most: Int, starving: TimeInterval,
            _ connection: PostgresConnection
        ) throws -> JobState? {
            let row = try connection.execute(
                "SELECT \(schema.name).snooze_job($1::bigint, $2::bigint, $3::float8, $4::integer, $5::float8) AS state",
                [String(id.rawValue), String(token), String(delay), String(most), String(starving)]
            ).rows.first
            return row?["state"].flatMap(JobState.init(databaseValue:))
        }

        /// Marks a running job cancelled (a cancellation was requested); call inside a transaction. Returns
        /// `false` when the lease is no longer this token's.
        func cancelRunning(
            _ id: JobID, token: Int64, reason: String, starving: TimeInterval, _ connection: PostgresConnection
        ) throws -> Bool {
            let row = try connection.execute(
                "SELECT \(schema.name).cancel_running_job($1::bigint, $2::bigint, $3, $4::float8) AS done",
                [String(id.rawValue), String(token), reason, String(starving)]
            ).rows.first
            return try row?.bool("done") ?? false
        }

        /// Gives a running job back without spending its attempt (a worker shutting down, a job this build cannot
        /// read), or records it cancelled when a cancellation was requested meanwhile; call inside a transaction.
        /// Returns `false` when the lease is no longer this token's.
        func release(_ id: JobID, token: Int64, starving: TimeInterval, _ connection: PostgresConnection) throws
            -> Bool
        {
            let row = try connection.execute(
                "SELECT \(schema.name).release_job($1::bigint, $2::bigint, $3::float8) AS done",
                [String(id.rawValue), String(token), String(starving)]
            ).rows.first
            return try row?.bool("done") ?? false
        }

        // MARK: - Leases

        /// What a heartbeat learnt of one job.
        enum Renewal: Equatable {
            /// The lease was extended; whether a cancellation was requested.
            case renewed(cancelRequested: Bool)
            /// The row is locked by another transaction (the job's own completion, a client's `FOR SHARE`): not
            /// renewed this time, but still this worker's.
            case locked(cancelRequested: Bool)
            /// The lease is no longer this token's.
            case lost
        }

        /// Extends the leases of `jobs` (id and token) by `lease` seconds, without ever waiting for a row lock:
        /// a locked row is skipped (`FOR NO KEY UPDATE SKIP LOCKED`) and reported as such. One answer per job, by
        /// token. (An enqueue naming a running job as its dependency holds it `FOR KEY SHARE`, which does not stop
        /// a renewal.)
        func heartbeat(_ jobs: [(JobID, Int64)], lease: TimeInterval, _ connection: PostgresConnection) throws
            -> [Int64: Renewal]
        {
            guard !jobs.isEmpty else { return [:] }
            // The final SELECT reads the rows as they were when the statement began (the CTEs' snapshot): a job
            // not renewed is still held when it was running with this token then, so it was skipped for a lock.
            let rows = try connection.execute(
                """
                WITH wanted AS (SELECT * FROM unnest($1::bigint[], $2::bigint[]) AS t(id, token)),
                locked AS (
                    SELECT j.id FROM \(schema.jobs) j JOIN wanted w ON j.id = w.id AND j.lease_token = w.token
                    WHERE j.state = 'running'
                    FOR NO KEY UPDATE OF j SKIP LOCKED),
                renewed AS (
                    UPDATE \(schema.jobs) j SET lease_expires_at = now() + make_interval(secs => $3::float8)
                    FROM locked WHERE j.id = locked.id
                    RETURNING j.id, j.cancel_requested)
                SELECT w.token, r.id IS NOT NULL AS renewed,
                    coalesce(r.cancel_requested, j.cancel_requested, false) AS cancel_requested,
                    coalesce(j.lease_token = w.token AND j.state = 'running', false) AS held
                FROM wanted w LEFT JOIN renewed r ON r.id = w.id LEFT JOIN \(schema.jobs) j ON j.id = w.id
                """,
                [
                    DurableSchema.integerArray(jobs.map(\.0.rawValue)), DurableSchema.integerArray(jobs.map(\.1)),
                    String(lease),
                ]
            ).rows
            var answers: [Int64: Renewal] = [:]
            for row in rows {
                let id = try row.int64("token")
                let cancelRequested = try row.bool("cancel_requested")
                if try row.bool("renewed") {
                    answers[id] = .renewed(cancelRequested: cancelRequested)
                } else if try row.bool("held") {
                    answers[id] = .locked(cancelRequested: cancelRequested)
                } else {
                    answers[id] = .lost
                }
            }
            return answers
        }

        // MARK: - Reaping

        /// When this process wins the reaper's advisory lock, requeues (or fails, when attempts are spent, or
        /// cancels, when asked to) up to `batch` running jobs whose leases expired, in a transaction of its own;
        /// rows locked by an outcome being recorded are left alone. Returns how many it handled, or `nil` when
        /// another process is reaping.
        func reapExpiredLeases(batch: Int, starving: TimeInterval, _ connection: PostgresConnection) throws -> Int? {
            try connection.transaction { connection in
                guard try holdsReaperLock(connection) else { return nil }
                let row = try connection.execute(
                    "SELECT \(schema.name).reap_expired($1::integer, $2::float8) AS reaped",
                    [String(batch), String(starving)]
                ).rows.first
                return Int(try row?.int64("reaped") ?? 0)
            }
        }

        /// When this process wins the reaper's advisory lock, makes available up to `batch` jobs that wait for
        /// exclusive categories none of which is held any more: a safety net behind the wake-up that releasing a
        /// category sends. Returns how many, or `nil` when another process is reaping.
        func wakeStrandedWaiters(batch: Int, _ connection: PostgresConnection) throws -> Int? {
            try connection.transaction { connection in
                guard try holdsReaperLock(connection) else { return nil }
                let rows = try connection.execute(
                    """
                    WITH stranded AS (
                        SELECT j.id FROM \(schema.jobs) j
                        WHERE j.state = 'waiting' AND NOT EXISTS (
                            SELECT 1 FROM \(schema.exclusive) x WHERE x.category = ANY (j.categories))
                        ORDER BY j.run_at, j.id LIMIT $1::integer
                        FOR NO KEY UPDATE OF j SKIP LOCKED),
                    woken AS (
                        UPDATE \(schema.jobs) j SET state = 'available' FROM stranded WHERE j.id = stranded.id
                        RETURNING j.id, j.kind),
                    forgotten AS (
                        DELETE FROM \(schema.name).category_waits w USING woken WHERE w.job_id = woken.id)
                    SELECT kind, count(*) AS woken FROM woken GROUP BY kind
                    """, [String(batch)]
                ).rows
                var woken = 0
                for row in rows {
                    try notify(schema.jobsChannel, row["kind"] ?? "", connection)
                    woken += Int(try row.int64("woken"))
                }
                return woken
            }
        }

        func holdsReaperLock(_ connection: PostgresConnection) throws -> Bool {
            try connection.execute(
                "SELECT pg_try_advisory_xact_lock(hashtext($1)) AS locked", [schema.reaperLockKey]
            ).rows.first?.bool("locked") ?? false
        }
    }
#endif
