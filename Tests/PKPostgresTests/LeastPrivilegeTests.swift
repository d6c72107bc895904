#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// An application role that may not create anything runs workers and enqueues once the schema was migrated
    /// separately; migrating inside a caller's transaction is not remembered when that transaction rolls back.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct LeastPrivilegeTests {

        /// A login role without the privilege to create schemas or tables, dropped (with its grants) by
        /// ``dropRole(_:)``.
        static func makeRole() throws -> String {
            let role = "pk_app_" + String(UInt32.random(in: 0...UInt32.max), radix: 16)
            let connection = try TestDatabase.connect()
            defer { connection.close() }
            try connection.execute("CREATE ROLE \(role) LOGIN NOCREATEDB NOCREATEROLE")
            return role
        }

        static func dropRole(_ role: String) {
            guard let connection = try? TestDatabase.connect() else { return }
            defer { connection.close() }
            _ = try? connection.execute("DROP OWNED BY \(role)")
            _ = try? connection.execute("DROP ROLE IF EXISTS \(role)")
        }

        /// What an application role needs on a migrated schema: using it, and reading and writing its rows.
        static func grant(_ schema: String, to role: String) throws {
            let connection = try TestDatabase.connect()
            defer { connection.close() }
            try connection.execute(
                """
                GRANT USAGE ON SCHEMA \(schema) TO \(role);
                GRANT SELECT, INSERT, UPDATE, DELETE ON ALL TABLES IN SCHEMA \(schema) TO \(role);
                GRANT USAGE, SELECT ON ALL SEQUENCES IN SCHEMA \(schema) TO \(role)
                """)
        }

        /// Whether `schema` exists, asked on a connection of the test's own (the fixture's queue would create it).
        static func schemaExists(_ schema: String) async throws -> Bool {
            try await runBlocking {
                let connection = try TestDatabase.connect()
                defer { connection.close() }
                let row = try connection.execute(
                    "SELECT count(*) AS n FROM pg_namespace WHERE nspname = $1", [schema]
                ).rows.first
                return try row?.int64("n") == 1
            }
        }

        @Test func anApplicationRoleRunsWorkersAndEnqueuesOnASchemaMigratedSeparately() async throws {
            try await withFixture { fixture in
                let role = try await runBlocking { try Self.makeRole() }
                defer { Self.dropRole(role) }
                try await fixture.queue.migrate()  // the deploy step, as the owner
                try await runBlocking { try Self.grant(fixture.schema, to: role) }
                // Automatic migration (the default) on a current schema only reads its version.
                let queue = try DurableQueue(
                    connectionString: TestDatabase.url + " user=\(role)", schema: fixture.schema)
                try queue.register(TestJob.self)
                try fixture.startWorker(queue: queue)
                let id = try await queue.enqueue(TestJob.self, input: fixture.input("least privilege"))
                let job = try await withHangTimeout("the job") { try await queue.waitUntilFinished(id) }
                #expect(job.state == .completed)
                #expect(fixture.probe.startedLabels == ["least privilege"])
            }
        }

        @Test func aManualQueueOnASchemaNotMigratedThrowsATypedErrorAndCreatesNothing() async throws {
            try await withFixture { fixture in
                let queue = try DurableQueue(
                    connectionString: TestDatabase.url, schema: fixture.schema, migration: .manual)
                let notMigrated = DurableError.schemaNotMigrated(
                    schema: fixture.schema, version: 0, required: DurableQueue.schemaVersion)
                await #expect(throws: notMigrated) {
                    try await queue.enqueue(TestJob.self, input: fixture.input("too early"))
                }
                #expect(try await !Self.schemaExists(fixture.schema))
                // Once migrated by the deploy step, the same queue works.
                try await queue.migrate()
                let id = try await queue.enqueue(TestJob.self, input: fixture.input("after migrating"))
                #expect(try await queue.job(id).state == .available)
            }
        }

        @Test func aRoleThatMayNotCreateTheSchemaGetsThePermissionErrorFromAnAutomaticQueue() async throws {
            try await withFixture { fixture in
                let role = try await runBlocking { try Self.makeRole() }
                defer { Self.dropRole(role) }
                let queue = try DurableQueue(
                    connectionString: TestDatabase.url + " user=\(role)", schema: fixture.schema)
                let error = await #expect(throws: PostgresError.self) {
                    try await queue.enqueue(TestJob.self, input: fixture.input("no privilege"))
                }
                #expect(error?.sqlState == "42501", "\(String(describing: error))")
            }
        }

        @Test func aMigrationInsideACallersTransactionThatRollsBackIsNotTakenAsDone() async throws {
            struct Rollback: Error {}
            try await withFixture { fixture in
                let queue = fixture.queue
                let input = fixture.input("after a rolled-back first use")
                // The first use of the queue is an enqueue inside a transaction of the caller's own connection,
                // which then rolls back: the schema it created goes with it.
                try await runBlocking {
                    let connection = try TestDatabase.connect()
                    defer { connection.close() }
                    #expect(throws: Rollback.self) {
                        try connection.transaction { connection in
                            _ = try queue.enqueue(TestJob.self, input: input, in: connection)
                            throw Rollback()
                        }
                    }
                }
                #expect(try await !Self.schemaExists(fixture.schema))
                // The next use migrates again instead of assuming the schema is there.
                let id = try await queue.enqueue(TestJob.self, input: input)
                #expect(try await queue.job(id).state == .available)
            }
        }
    }
#endif
