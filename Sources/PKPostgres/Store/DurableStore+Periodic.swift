#if Postgres
    import Foundation

    /// Enqueueing periodic jobs, once per period across the fleet.
    extension DurableStore {
        /// What one check of a periodic job did.
        struct PeriodicCheck: Sendable, Hashable {
            var enqueued = 0
            var skipped = 0
            /// The job enqueued, if any (not one whose unique key was taken already).
            var job: JobID?
        }

        /// When this process is elected for maintenance (it holds the reaper's lock for the transaction), enqueues
        /// the job of `periodic`'s latest due period, if it has not been enqueued yet, in one transaction that
        /// locks the periodic job's row: so each period's job is enqueued once however many workers check, and a
        /// worker that takes over after another died continues from the table. Periods missed by more than
        /// `grace` seconds are skipped when the job says so. Returns `nil` when another process is elected.
        func checkPeriodic(_ periodic: DurablePeriodicJob, grace: TimeInterval, _ connection: PostgresConnection)
            throws -> PeriodicCheck?
        {
            try connection.transaction { connection in
                guard try holdsReaperLock(connection) else { return nil }
                let now = Date(
                    timeIntervalSince1970: try connection.execute("SELECT extract(epoch FROM now())::float8 AS now")
                        .rows.first.flatMap { $0["now"] }.flatMap(Double.init) ?? Date().timeIntervalSince1970)
                let row = try connection.execute(
                    """
                    SELECT extract(epoch FROM last_period_at)::float8 AS last FROM \(schema.name).periodic
                    WHERE name = $1 FOR UPDATE
                    """, [periodic.name]
                ).rows.first
                var check = PeriodicCheck()
                guard let last = row?["last"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:)) else {
                    // First seen: periods count from now; the job runs now only if it runs on start.
                    let inserted = try connection.execute(
                        """
                        INSERT INTO \(schema.name).periodic (name, last_period_at) VALUES ($1, to_timestamp($2::float8))
                        ON CONFLICT (name) DO NOTHING
                        """, [periodic.name, String(now.timeIntervalSince1970)]
                    ).affectedRows
                    if inserted == 1, periodic.runOnStart {
                        let (id, isNew) = try insertReporting(periodic.job(for: now), connection)
                        check.job = isNew ? id : nil
                        check.enqueued = 1
                    }
                    try describe(periodic, next: periodic.schedule.next(after: now), connection)
                    return check
                }
                guard let (latest, count) = periodic.schedule.latestPeriod(after: last, upTo: now) else {
                    try describe(periodic, next: periodic.schedule.next(after: last), connection)
                    return check
                }
                let late = now.timeIntervalSince(latest) > grace
                if periodic.missedPeriods == .runLatest || !late {
                    let (id, isNew) = try insertReporting(periodic.job(for: latest), connection)
                    check.job = isNew ? id : nil
                    check.enqueued = 1
                }
                check.skipped = count - check.enqueued
                try connection.execute(
                    """
                    UPDATE \(schema.name).periodic SET last_period_at = to_timestamp($2::float8), changed_at = now()
                    WHERE name = $1
                    """, [periodic.name, String(latest.timeIntervalSince1970)])
                try describe(periodic, next: periodic.schedule.next(after: latest), connection)
                return check
            }
        }

        /// Records the periodic job's kind, schedule and next period for the dashboard, when they changed.
        private func describe(_ periodic: DurablePeriodicJob, next: Date?, _ connection: PostgresConnection) throws {
            try connection.execute(
                """
                UPDATE \(schema.name).periodic SET kind = $2, schedule = $3, next_period_at = to_timestamp($4::float8)
                WHERE name = $1 AND (kind IS DISTINCT FROM $2 OR schedule IS DISTINCT FROM $3
                    OR next_period_at IS DISTINCT FROM to_timestamp($4::float8))
                """,
                [
                    periodic.name, periodic.kind, periodic.schedule.description,
                    next.map { String($0.timeIntervalSince1970) },
                ])
        }
    }
#endif
