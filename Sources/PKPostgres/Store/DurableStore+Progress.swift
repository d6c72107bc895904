#if Postgres
    import Foundation

    /// What running jobs record about themselves: their metadata and progress (``DurableJobJournal``).
    extension DurableStore {
        /// One running job's changes: new progress, metadata to add, or both.
        struct JournalEntry: Sendable {
            let id: JobID
            let token: Int64
            let progress: DurableJobJournal.Progress?
            let metadata: [String: String]?
        }

        /// Writes the entries of jobs still running under their tokens; one statement. With `skipLocked` (the
        /// progress flush, on the heartbeat's connection, which never waits) a job whose row is locked is skipped:
        /// an outcome being recorded, which writes what is left. Returns the ids written.
        func writeJournals(_ entries: [JournalEntry], skipLocked: Bool, _ connection: PostgresConnection) throws
            -> Set<JobID>
        {
            guard !entries.isEmpty else { return [] }
            let rows = try connection.execute(
                """
                WITH wanted AS (
                    SELECT * FROM unnest($1::bigint[], $2::bigint[], $3::text[], $4::text[], $5::text[])
                        AS t(id, token, progress, message, metadata)),
                locked AS (
                    SELECT j.id FROM \(schema.jobs) j JOIN wanted w ON j.id = w.id AND j.lease_token = w.token
                    WHERE j.state = 'running'
                    FOR NO KEY UPDATE OF j \(skipLocked ? "SKIP LOCKED" : ""))
                UPDATE \(schema.jobs) j SET
                    metadata = CASE WHEN w.metadata IS NULL THEN j.metadata ELSE j.metadata || w.metadata::jsonb END,
                    progress = CASE WHEN w.progress IS NULL THEN j.progress ELSE w.progress::float8 END,
                    progress_message = CASE WHEN w.progress IS NULL THEN j.progress_message ELSE w.message END,
                    progress_attempt = CASE WHEN w.progress IS NULL THEN j.progress_attempt ELSE j.attempt END
                FROM wanted w, locked l WHERE j.id = w.id AND j.id = l.id
                RETURNING j.id
                """,
                [
                    DurableSchema.integerArray(entries.map(\.id.rawValue)),
                    DurableSchema.integerArray(entries.map(\.token)),
                    DurableSchema.nullableTextArray(entries.map { $0.progress.map { String($0.fraction) } }),
                    DurableSchema.nullableTextArray(entries.map { $0.progress?.message }),
                    DurableSchema.nullableTextArray(
                        entries.map { $0.metadata.map { DurableJobOptions.metadataJSON($0) } }),
                ]
            ).rows
            return Set(try rows.map { JobID(rawValue: try $0.int64("id")) })
        }
    }
#endif
