#if Postgres
    import Foundation

    /// Inserting many jobs in one statement.
    extension DurableStore {
        /// Inserts one job of `kind` per input, all with `options` (no unique key, no dependencies: checked by the
        /// caller), in one statement; call inside a transaction. Returns their ids in the inputs' order.
        ///
        /// The ids are taken from the sequence in the inputs' order (the subquery's order, before the insert), so
        /// ascending ids match the inputs one to one.
        func insertBatch(
            kind: String, inputs: [String], options: DurableJobOptions, _ connection: PostgresConnection
        ) throws -> [JobID] {
            guard !inputs.isEmpty else { return [] }
            let timeout = options.timeout.map { String($0.timeInterval) }
            let retry = String(decoding: try JSONEncoder().encode(options.retry), as: UTF8.self)
            let runAt = options.runAt.map { String($0.timeIntervalSince1970) }
            let rows = try connection.execute(
                """
                INSERT INTO \(schema.jobs) (id, kind, state, priority, run_at, input, max_attempts, retry, categories,
                    timeout_seconds, queue, metadata)
                SELECT s.id, $1, CASE WHEN t.run_at > now() THEN 'scheduled' ELSE 'available' END, $2::integer,
                    t.run_at, s.input, $4::integer, $5::jsonb, $6::text[], $7::float8, $8,
                    coalesce($10::jsonb, '{}'::jsonb)
                FROM (
                    SELECT nextval(pg_get_serial_sequence('\(schema.jobs)', 'id')) AS id, o.input
                    FROM (SELECT i.input, i.n FROM unnest($9::jsonb[]) WITH ORDINALITY AS i(input, n) ORDER BY i.n) o
                ) s
                CROSS JOIN (SELECT coalesce(to_timestamp($3::float8), now()) AS run_at) t
                RETURNING id, state
                """,
                [
                    kind, String(options.priority), runAt, String(options.retry.maxAttempts), retry,
                    DurableSchema.textArray(Array(Set(options.exclusiveCategories)).sorted()), timeout, options.queue,
                    DurableSchema.textArray(inputs),
                    options.metadata.isEmpty ? nil : DurableJobOptions.metadataJSON(options.metadata),
                ]
            ).rows
            if rows.contains(where: { $0["state"] == "available" }) { try notify(schema.jobsChannel, kind, connection) }
            return try rows.map { JobID(rawValue: try $0.int64("id")) }.sorted()
        }
    }
#endif
