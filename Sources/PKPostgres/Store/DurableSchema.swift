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

        /// The migrations, in order; the schema's version is the count applied.
        var migrations: [String] {
            [
                """
                CREATE SEQUENCE \(name).lease_tokens;
                CREATE SEQUENCE \(name).graph_ids;
                CREATE TABLE \(jobs) (
                    id bigserial PRIMARY KEY,
                    kind text NOT NULL,
                    state text NOT NULL
                        CHECK (state IN ('blocked', 'available', 'running', 'completed', 'failed', 'cancelled')),
                    priority integer NOT NULL DEFAULT 0,
                    run_at timestamptz NOT NULL DEFAULT now(),
                    input jsonb,
                    input_from bigint,
                    output jsonb,
                    errors jsonb NOT NULL DEFAULT '[]',
                    attempt integer NOT NULL DEFAULT 0,
                    max_attempts integer NOT NULL DEFAULT 1,
                    retry jsonb NOT NULL,
                    unique_key text UNIQUE,
                    graph_id bigint,
                    pending_dependencies integer NOT NULL DEFAULT 0,
                    ignore_failed_dependencies boolean NOT NULL DEFAULT false,
                    categories text[] NOT NULL DEFAULT '{}',
                    lease_owner text,
                    lease_token bigint,
                    lease_expires_at timestamptz,
                    cancel_requested boolean NOT NULL DEFAULT false,
                    created_at timestamptz NOT NULL DEFAULT now(),
                    started_at timestamptz,
                    finished_at timestamptz
                );
                CREATE INDEX jobs_available ON \(jobs) (priority DESC, run_at, id) WHERE state = 'available';
                CREATE INDEX jobs_running ON \(jobs) (lease_expires_at) WHERE state = 'running';
                CREATE INDEX jobs_graph ON \(jobs) (graph_id) WHERE graph_id IS NOT NULL;
                CREATE INDEX jobs_finished ON \(jobs) (finished_at) WHERE finished_at IS NOT NULL;
                CREATE TABLE \(dependencies) (
                    depends_on bigint NOT NULL REFERENCES \(jobs) (id) ON DELETE CASCADE,
                    job_id bigint NOT NULL REFERENCES \(jobs) (id) ON DELETE CASCADE,
                    PRIMARY KEY (depends_on, job_id)
                );
                CREATE INDEX dependencies_job ON \(dependencies) (job_id);
                CREATE TABLE \(exclusive) (
                    category text PRIMARY KEY,
                    job_id bigint NOT NULL,
                    lease_token bigint NOT NULL
                );
                """
            ]
        }

        /// Creates the schema and applies the missing migrations; safe to run from many processes at once.
        func migrate(_ connection: PostgresConnection) throws {
            try connection.transaction { connection in
                try connection.execute("SELECT pg_advisory_xact_lock(hashtext($1))", [migrationLockKey])
                try connection.execute("CREATE SCHEMA IF NOT EXISTS \(name)")
                try connection.execute(
                    """
                    CREATE TABLE IF NOT EXISTS \(name).schema_versions (
                        version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())
                    """)
                let current =
                    try connection.execute(
                        "SELECT coalesce(max(version), 0) AS version FROM \(name).schema_versions"
                    ).rows.first?.int64("version") ?? 0
                guard current <= migrations.count else {
                    throw DurableError.invalidOption(
                        "the schema \(name) is at version \(current), newer than this library's \(migrations.count)")
                }
                for (index, migration) in migrations.enumerated() where index + 1 > current {
                    try connection.execute(migration)
                    try connection.execute(
                        "INSERT INTO \(name).schema_versions (version) VALUES ($1::integer)", [String(index + 1)])
                }
            }
        }

        /// `values` as a PostgreSQL array literal (`{"a","b"}`), for a `text[]` parameter.
        static func textArray(_ values: [String]) -> String {
            let quoted = values.map { value in
                "\"" + value.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\"", with: "\\\"")
                    + "\""
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
