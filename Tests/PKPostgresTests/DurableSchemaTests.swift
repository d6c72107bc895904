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
    }
#endif
