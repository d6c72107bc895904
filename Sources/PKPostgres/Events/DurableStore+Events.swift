#if Postgres
    import Foundation

    /// What the events need to know of an enqueue with a unique key: whether it made a job, or named one that exists.
    extension DurableStore {
        /// Whether a job holds `key` now, as the caller's transaction sees it (its own enqueues included).
        func uniqueKeyIsTaken(_ key: String, _ connection: PostgresConnection) throws -> Bool {
            !(try connection.execute("SELECT 1 FROM \(schema.jobs) WHERE unique_key = $1", [key]).rows.isEmpty)
        }

        /// Whether the job `id`'s row was written by the caller's transaction (or one of its savepoints), which is
        /// still open: a row visible to it whose writer is in progress can only be its own. The row's 32-bit `xmin`
        /// is widened with the epoch of the transaction's own id (a savepoint's id is never older than it); an id
        /// the current snapshot says is not yet assigned is another epoch's, so not this transaction's.
        func insertedInThisTransaction(_ id: JobID, _ connection: PostgresConnection) throws -> Bool {
            let row = try connection.execute(
                """
                WITH t AS (SELECT pg_current_xact_id()::text::bigint AS top,
                        pg_snapshot_xmax(pg_current_snapshot())::text::bigint AS next),
                r AS (SELECT xmin::text::bigint AS x FROM \(schema.jobs) WHERE id = $1::bigint),
                c AS (SELECT t.top - t.top % 4294967296 + r.x
                        + CASE WHEN r.x < t.top % 4294967296 THEN 4294967296 ELSE 0 END AS candidate, t.next
                    FROM t, r)
                SELECT CASE WHEN c.candidate < c.next
                    THEN pg_xact_status(c.candidate::text::xid8) = 'in progress' ELSE false END AS mine
                FROM c
                """, [String(id.rawValue)]
            ).rows.first
            return try row?.bool("mine") ?? false
        }
    }
#endif
