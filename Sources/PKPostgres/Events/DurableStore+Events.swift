#if Postgres
    import Foundation

    /// What the events need to know of an enqueue with a unique key: whether it made a job, or named one that exists.
    extension DurableStore {
        /// Whether a job holds `key` now, as the caller's transaction sees it (its own enqueues included).
        func uniqueKeyIsTaken(_ key: String, _ connection: PostgresConnection) throws -> Bool {
            !(try connection.execute("SELECT 1 FROM \(schema.jobs) WHERE unique_key = $1", [key]).rows.isEmpty)
        }

        /// Whether the job `id`'s row was written by the caller's transaction (or one of its savepoints), which is
        /// still open: a row visible to it whose writer is in progress can only be its own. `age(xmin)` is 0 for
        /// the transaction's own id and negative for later ones (its savepoints', or those of transactions that
        /// began after it), which gives the writer's 64-bit id for `pg_xact_status`; a positive age (an older
        /// writer, or a frozen row) is not this transaction.
        func insertedInThisTransaction(_ id: JobID, _ connection: PostgresConnection) throws -> Bool {
            let row = try connection.execute(
                """
                SELECT CASE WHEN age(xmin) <= 0
                    THEN pg_xact_status((pg_current_xact_id()::text::bigint - age(xmin))::text::xid8) = 'in progress'
                    ELSE false END AS mine
                FROM \(schema.jobs) WHERE id = $1::bigint
                """, [String(id.rawValue)]
            ).rows.first
            return try row?.bool("mine") ?? false
        }
    }
#endif
