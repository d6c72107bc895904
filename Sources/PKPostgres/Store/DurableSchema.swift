#if Postgres
    /// The tables PKPostgres keeps in its schema, and the migrations that create them.
    ///
    /// Migrations are numbered and applied in order, each once, under a transaction-scoped advisory lock, so any
    /// number of processes may open a queue at the same time: the first creates the tables, the others wait and
    /// find them made. A database migrated by a newer library is refused by an older one.
    struct DurableSchema: Sendable {
        /// The schema's name, a plain lower-case identifier (validated).
        let name: String

        init(_ name: String) throws {
            let allowed = name.utf8.allSatisfy { ($0 >= 97 && $0 <= 122) || ($0 >= 48 && $0 <= 57) || $0 == 95 }
            guard !name.isEmpty, name.utf8.count <= 40, allowed, let first = name.utf8.first,
                !(first >= 48 && first <= 57)
            else { throw DurableError.invalidSchemaName(name) }
            self.name = name
        }

        var jobs: String { "\(name).jobs" }
        var dependencies: String { "\(name).dependencies" }
        var exclusive: String { "\(name).exclusive_categories" }

        /// Where workers hear of newly available jobs (payload: the kind).
        var jobsChannel: String { "\(name)_jobs" }
        /// Where workers hear of cancellation requests (payload: the job id).
        var cancelChannel: String { "\(name)_cancel" }
        /// Where waiters hear of finished jobs (payload: the job id).
        var finishedChannel: String { "\(name)_finished" }

        /// The key of the advisory lock migrations hold.
        var migrationLockKey: String { "procedurekit.migrate.\(name)" }
        /// The key of the advisory lock the elected reaper holds.
        var reaperLockKey: String { "procedurekit.reaper.\(name)" }

        /// The version the migrations bring a schema to: how many there are.
        static var version: Int { (try? DurableSchema("version"))?.migrations.count ?? 0 }

        /// The migrations, in order; the schema's version is the count applied.
        var migrations: [String] {
            [migration1, migration2Claims + migration2Outcomes, migration3Queues, migration4Uniqueness]
        }

        /// The version the schema is at now, 0 when it does not exist. Only reads (it needs no privilege to create
        /// anything) and never fails a transaction it runs in for a missing schema.
        func version(_ connection: PostgresConnection) throws -> Int {
            let present =
                try connection.execute(
                    "SELECT to_regclass($1) IS NOT NULL AS present", ["\(name).schema_versions"]
                ).rows.first?.bool("present") ?? false
            guard present else { return 0 }
            let row = try connection.execute(
                "SELECT coalesce(max(version), 0) AS version FROM \(name).schema_versions"
            ).rows.first
            return Int(try row?.int64("version") ?? 0)
        }

        /// Creates the schema and applies the missing migrations; safe to run from many processes at once. A
        /// schema already at this library's version is only read, so a role without the privilege to create
        /// anything can call it once the schema was migrated by another.
        func migrate(_ connection: PostgresConnection) throws {
            let current = try version(connection)
            guard current < migrations.count else {
                if current > migrations.count { throw newerSchema(current) }
                return
            }
            try connection.transaction { connection in
                try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [migrationLockKey])
                // CREATE SCHEMA IF NOT EXISTS needs the privilege to create schemas even when the schema exists.
                let exists =
                    try connection.execute("SELECT to_regnamespace($1) IS NOT NULL AS present", [name])
                    .rows.first?.bool("present") ?? false
                if !exists { try connection.execute("CREATE SCHEMA \(name)") }
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(name).schema_versions (
                        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """)
                let current = try version(connection)
                guard current <= migrations.count else { throw newerSchema(current) }
                for (index, migration) in migrations.enumerated() where index + 1 > current {
                    try connection.execute(migration)
                    try connection.execute(
                        "INSERT INTO \(name).schema_versions (version) VALUES ($1::integer)", [String(index + 1)])
                }
            }
        }

        private func newerSchema(_ version: Int) -> DurableError {
            DurableError.invalidOption(
                "the schema \(name) is at version \(version), newer than this library's \(migrations.count)")
        }

        /// `values` as a PostgreSQL array literal (`{"a","b"}`), for a `text[]` parameter.
        static func textArray(_ values: [String]) -> String {
            let quoted = values.map { value in
                "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
            }
            return "{" + quoted.joined(separator: ",") + "}"
        }

        /// `values` as a PostgreSQL array literal whose `nil` elements are `NULL`, for a `text[]` parameter.
        static func nullableTextArray(_ values: [String?]) -> String {
            let quoted = values.map { value in
                value.map { textArray([$0]).dropFirst().dropLast() }.map(String.init) ?? "NULL"
            }
            return "{" + quoted.joined(separator: ",") + "}"
        }

        /// `values` as a PostgreSQL array literal, for a `bigint[]` parameter.
        static func integerArray(_ values: [Int64]) -> String {
            "{" + values.map(String.init).joined(separator: ",") + "}"
        }

        /// Parses a `text[]` value as PostgreSQL prints it (`{a,"b c"}`).
        static func parseTextArray(_ text: String?) -> [String] {
            guard let text, text.count >= 2 else { return [] }
            var values: [String] = []
            var current = ""
            var quoted = false
            var escaped = false
            var wasQuoted = false
            for character in text.dropFirst().dropLast() {
                if escaped {
                    current.append(character)
                    escaped = false
                } else if character == "\\" {
                    escaped = true
                } else if character == "\"" {
                    quoted.toggle()
                    wasQuoted = true
                } else if character == "," && !quoted {
                    values.append(current)
                    current = ""
                    wasQuoted = false
                } else {
                    current.append(character)
                }
            }
            if !current.isEmpty || wasQuoted { values.append(current) }
            return values
        }
    }
#endif
