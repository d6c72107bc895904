#if Postgres
    import Foundation

    /// The statements behind PKTesting's durable-job helpers: which jobs were enqueued, with the options they were
    /// enqueued with, and moving a job that has not started to another named queue.
    extension DurableStore {
        /// A job as the table holds it: its snapshot, and the options it was enqueued with as stored.
        package struct StoredJob: Sendable {
            /// The job now.
            package let snapshot: DurableJobSnapshot
            /// Its options as stored: ``DurableJobOptions/runAt`` is always set (the enqueue's time when none was
            /// given), exclusive categories are sorted without duplicates, dependencies are in id order without the
            /// input source (which is ``DurableJobOptions/inputFrom``).
            package let options: DurableJobOptions
        }

        /// The last job id the table's sequence handed out, committed or not (0 when none was): a job enqueued
        /// later has a greater id.
        func lastJobID(_ connection: PostgresConnection) throws -> Int64 {
            let row = try connection.execute(
                "SELECT coalesce(pg_sequence_last_value(pg_get_serial_sequence($1, 'id')), 0) AS last", [schema.jobs]
            ).rows.first
            return try row?.int64("last") ?? 0
        }

        /// The jobs of `kind` with an id greater than `after`, in id order, as the connection sees them (inside a
        /// transaction: its own uncommitted inserts included).
        func jobs(ofKind kind: String, after: Int64, _ connection: PostgresConnection) throws -> [StoredJob] {
            try connection.execute(
                """
                SELECT \(Self.snapshotColumns), unique_key, input_from, retry::text AS retry,
                    ignore_failed_dependencies, array_to_json(categories)::text AS categories, timeout_seconds,
                    (SELECT coalesce(json_agg(d.depends_on ORDER BY d.depends_on), '[]'::json)
                     FROM \(schema.dependencies) d WHERE d.job_id = j.id)::text AS dependencies
                FROM \(schema.jobs) j WHERE kind = $1 AND id > $2::bigint ORDER BY id
                """, [kind, String(after)]
            ).rows.map(Self.storedJob(_:))
        }

        private static func storedJob(_ row: PostgresRow) throws -> StoredJob {
            let snapshot = try DurableJobSnapshot(row: row)
            func decoded<T: Decodable>(_ type: T.Type, _ column: String) throws -> T {
                try JSONDecoder().decode(type, from: Data((row[column] ?? "null").utf8))
            }
            let inputFrom = row["input_from"].flatMap(Int64.init).map(JobID.init(rawValue:))
            var options = DurableJobOptions(
                priority: snapshot.priority, runAt: snapshot.runAt, uniqueKey: row["unique_key"],
                dependencies: try decoded([Int64].self, "dependencies").map(JobID.init(rawValue:)).filter {
                    $0 != inputFrom
                },
                ignoreFailedDependencies: try row.bool("ignore_failed_dependencies"), inputFrom: inputFrom,
                retry: try decoded(DurableRetryPolicy.self, "retry"),
                exclusiveCategories: try decoded([String].self, "categories"), queue: snapshot.queue)
            // Stored as float8 seconds: back to the microsecond, so that `.milliseconds(100)` reads back equal.
            options.timeout = row["timeout_seconds"].flatMap(Double.init).map {
                .microseconds(Int64(($0 * 1_000_000).rounded()))
            }
            return StoredJob(snapshot: snapshot, options: options)
        }

        /// Moves job `id` to the named queue `queue` unless it has started: returns the queue it was in, or `nil`
        /// when it runs or has finished.
        ///
        /// - Throws: ``DurableError/jobNotFound(_:)``.
        func moveUnstarted(_ id: JobID, to queue: String, _ connection: PostgresConnection) throws -> String? {
            try connection.transaction { connection in
                guard
                    let row = try connection.execute(
                        "SELECT queue, state FROM \(schema.jobs) WHERE id = $1::bigint FOR UPDATE",
                        [String(id.rawValue)]
                    ).rows.first
                else { throw DurableError.jobNotFound(id) }
                guard ["blocked", "scheduled", "available", "waiting"].contains(row["state"]) else { return nil }
                try setQueue(of: id, to: queue, connection)
                return row["queue"] ?? DurableJobOptions.defaultQueue
            }
        }

        /// Puts job `id`, in whatever state, in the named queue `queue`.
        func setQueue(of id: JobID, to queue: String, _ connection: PostgresConnection) throws {
            try connection.execute(
                "UPDATE \(schema.jobs) SET queue = $2 WHERE id = $1::bigint", [String(id.rawValue), queue])
        }
    }
#endif
