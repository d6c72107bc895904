#if Postgres
    import Foundation
    import Testing

    @testable import PKPostgres

    /// The schema's helpers: array literals written for PostgreSQL and read back from it.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct DurableSchemaTests {

        static let awkwardTexts: [[String]] = [
            [], ["plain"], ["a", "b", "c"], ["NULL"], [""], ["", ""], [" spaced "], ["a,b"], ["q\"uote"],
            ["back\\slash"], ["{braces}"], ["ünïcödé ✓"], ["semi;colon", "it's"], ["trailing\\"],
        ]

        @Test(arguments: awkwardTexts)
        func aTextArrayRoundTripsThroughPostgreSQL(values: [String]) throws {
            let connection = try TestDatabase.connect()
            let row = try #require(
                try connection.execute(
                    "SELECT $1::text[] AS a, cardinality($1::text[]) AS n", [DurableSchema.textArray(values)]
                ).rows.first)
            #expect(try row.int64("n") == Int64(values.count))
            #expect(DurableSchema.parseTextArray(row["a"]) == values)
        }

        @Test func anIntegerArrayIsReadByPostgreSQL() throws {
            let connection = try TestDatabase.connect()
            let row = try #require(
                try connection.execute(
                    "SELECT array_to_string($1::bigint[], ' ') AS a", [DurableSchema.integerArray([1, -2, .max])]
                ).rows.first)
            #expect(row["a"] == "1 -2 \(Int64.max)")
        }

        @Test func migratingTwiceChangesNothing() throws {
            let schema = try DurableSchema(TestDatabase.uniqueName())
            let connection = try TestDatabase.connect()
            defer { _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema.name) CASCADE") }
            try schema.migrate(connection)
            try schema.migrate(connection)
            let versions = try connection.execute("SELECT version FROM \(schema.name).schema_versions").rows
            #expect(versions.map { $0["version"] } == (1...schema.migrations.count).map(String.init))
        }

        @Test func aSchemaMigratedByANewerLibraryIsRefused() throws {
            let schema = try DurableSchema(TestDatabase.uniqueName())
            let connection = try TestDatabase.connect()
            defer { _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema.name) CASCADE") }
            try schema.migrate(connection)
            try connection.execute(
                "INSERT INTO \(schema.name).schema_versions (version) VALUES ($1::integer)",
                [String(schema.migrations.count + 1)])
            let error = #expect(throws: DurableError.self) { try schema.migrate(connection) }
            guard case .invalidOption = error else {
                Issue.record("expected invalidOption, got \(String(describing: error))")
                return
            }
        }

        @Test func aNullableTextArrayKeepsItsNullsAndItsTexts() throws {
            let connection = try TestDatabase.connect()
            let values: [String?] = [nil, "NULL", "", "a,b", nil, "q\"uote"]
            let row = try #require(
                try connection.execute(
                    """
                    SELECT array_to_string(array(SELECT coalesce(v, '<null>') FROM unnest($1::text[]) v), '|') AS a
                    """, [DurableSchema.nullableTextArray(values)]
                ).rows.first)
            #expect(row["a"] == "<null>|NULL||a,b|<null>|q\"uote")
        }

        @Test func aJobsUniqueKeyStillHoldsAfterTheUpgradeToUniquenessModes() async throws {
            let schema = try DurableSchema(TestDatabase.uniqueName())
            let connection = try TestDatabase.connect()
            defer { _ = try? connection.execute("DROP SCHEMA IF EXISTS \(schema.name) CASCADE") }
            // A schema at version 3 holding a finished job with a unique key, as the library before left it.
            try connection.execute("CREATE SCHEMA \(schema.name)")
            try connection.execute(
                "CREATE TABLE \(schema.name).schema_versions (version integer PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())"
            )
            for (index, migration) in schema.migrations.prefix(3).enumerated() {
                try connection.execute(migration)
                try connection.execute(
                    "INSERT INTO \(schema.name).schema_versions (version) VALUES ($1::integer)", [String(index + 1)])
            }
            let old = try #require(
                try connection.execute(
                    """
                    INSERT INTO \(schema.jobs) (kind, state, retry, unique_key, finished_at)
                    VALUES ('test.job', 'failed', '{"maxAttempts":1}', 'nightly', now()) RETURNING id
                    """
                ).rows.first)
            let queue = try DurableQueue(connectionString: TestDatabase.url, schema: schema.name)
            try queue.register(TestJob.self)
            let probe = Probe.make()
            defer { probe.unregister() }
            let input = TestInput(probe: probe.name, label: "again")
            let id = try await queue.enqueue(
                TestJob.self, input: input, options: DurableJobOptions(uniqueKey: "nightly"))
            #expect(id.rawValue == (try old.int64("id")))
            let version = try connection.execute("SELECT max(version) AS v FROM \(schema.name).schema_versions")
            #expect(version.rows.first?["v"] == String(DurableQueue.schemaVersion))
        }
    }
#endif
