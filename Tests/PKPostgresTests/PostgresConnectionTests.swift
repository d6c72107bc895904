#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// PostgresConnection against the test server. Its calls block, so the tests are synchronous.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct PostgresConnectionTests {

        @Test func parametersAndNullsRoundTripAsText() throws {
            let connection = try TestDatabase.connect()
            let text = "it's \"quoted\"; ünïcode ✓ -- not a comment"
            let row = try #require(
                try connection.execute(
                    "SELECT $1::text AS text, $2::text AS missing, $3::bigint + 1 AS number, $4::boolean AS flag",
                    [text, nil, "41", "true"]
                ).rows.first)
            #expect(row["text"] == text)
            #expect(row["missing"] == nil)
            #expect(row.values.count == 4)
            #expect(try row.int64("number") == 42)
            #expect(try row.bool("flag"))
        }

        @Test func severalStatementsWithoutParametersReturnTheLastOnesRows() throws {
            let connection = try TestDatabase.connect()
            let result = try connection.execute(
                "CREATE TEMP TABLE numbers (n integer); INSERT INTO numbers VALUES (1), (2); SELECT n FROM numbers ORDER BY n"
            )
            #expect(result.columns == ["n"])
            #expect(result.rows.map { $0["n"] } == ["1", "2"])
        }

        @Test func anUpdateReportsTheRowsItChanged() throws {
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer); INSERT INTO numbers VALUES (1), (2), (3)")
            let result = try connection.execute("UPDATE numbers SET n = n + 10 WHERE n >= $1::integer", ["2"])
            #expect(result.affectedRows == 2)
        }

        @Test func aSyntaxErrorThrowsStatementFailedWithTheServersSQLState() throws {
            let connection = try TestDatabase.connect()
            let error = try #require(throws: PostgresError.self) { try connection.execute("SELEC 1") }
            #expect(error.kind == .statementFailed)
            #expect(error.sqlState == "42601")
            #expect(!error.isTransient)
            // The connection is still usable afterwards.
            #expect(try connection.execute("SELECT 1 AS one").rows.first?["one"] == "1")
        }

        @Test func aMissingTableThrowsStatementFailedWithUndefinedTable() throws {
            let connection = try TestDatabase.connect()
            let error = try #require(throws: PostgresError.self) {
                try connection.execute("SELECT * FROM no_such_table WHERE 1 = $1::integer", ["1"])
            }
            #expect(error.kind == .statementFailed)
            #expect(error.sqlState == "42P01")
        }

        @Test(arguments: ["host=/nonexistent/procedurekit port=1 dbname=nothing", "postgresql://[::1"])
        func aBadConnectionStringThrowsConnectionFailed(connectionString: String) {
            let error = #expect(throws: PostgresError.self) { try PostgresConnection(connectionString) }
            #expect(error?.kind == .connectionFailed)
            #expect(error?.isTransient == true)
        }

        @Test func aClosedConnectionThrowsConnectionLost() throws {
            let connection = try TestDatabase.connect()
            #expect(connection.isOpen)
            #expect(connection.serverProcessID != 0)
            connection.close()
            #expect(!connection.isOpen)
            let error = #expect(throws: PostgresError.self) { try connection.execute("SELECT 1") }
            #expect(error?.kind == .connectionLost)
        }

        @Test func aTransactionCommitsWhenItsBodyReturns() throws {
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer)")
            let value = try connection.transaction { connection -> Int in
                #expect(connection.isInTransaction)
                try connection.execute("INSERT INTO numbers VALUES (1)")
                return 7
            }
            #expect(value == 7)
            #expect(!connection.isInTransaction)
            #expect(try connection.execute("SELECT count(*) AS n FROM numbers").rows.first?.int64("n") == 1)
        }

        @Test func aTransactionRollsBackWhenItsBodyThrows() throws {
            struct Abort: Error {}
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer)")
            #expect(throws: Abort.self) {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO numbers VALUES (1)")
                    throw Abort()
                }
            }
            #expect(!connection.isInTransaction)
            #expect(try connection.execute("SELECT count(*) AS n FROM numbers").rows.first?.int64("n") == 0)
        }

        @Test func aNestedTransactionIsASavepointWhoseRollbackKeepsTheOuterWork() throws {
            struct Abort: Error {}
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO numbers VALUES (1)")
                #expect(throws: Abort.self) {
                    try connection.transaction { connection in
                        try connection.execute("INSERT INTO numbers VALUES (2)")
                        throw Abort()
                    }
                }
                #expect(connection.isInTransaction)
                _ = try connection.transaction { try $0.execute("INSERT INTO numbers VALUES (3)") }
            }
            let rows = try connection.execute("SELECT n FROM numbers ORDER BY n").rows
            #expect(rows.map { $0["n"] } == ["1", "3"])
        }

        @Test func aFailedStatementInsideANestedTransactionLeavesTheOuterOneUsable() throws {
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO numbers VALUES (1)")
                #expect(throws: PostgresError.self) {
                    try connection.transaction { try $0.execute("SELEC 1") }
                }
                try connection.execute("INSERT INTO numbers VALUES (2)")
            }
            #expect(try connection.execute("SELECT count(*) AS n FROM numbers").rows.first?.int64("n") == 2)
        }

        @Test func aTransactionWhoseBodySwallowsAStatementErrorThrowsAndCommitsNothing() throws {
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer)")
            let error = #expect(throws: PostgresError.self) {
                try connection.transaction { connection in
                    try connection.execute("INSERT INTO numbers VALUES (1)")
                    _ = try? connection.execute("SELEC 1")  // caught and dropped: the server aborted the transaction
                }
            }
            #expect(error?.sqlState == "25P02")
            #expect(error?.isTransient == false)
            #expect(!connection.isInTransaction)
            #expect(try connection.execute("SELECT count(*) AS n FROM numbers").rows.first?.int64("n") == 0)
        }

        @Test func aNestedTransactionWhoseBodySwallowsAnErrorRollsBackToItsSavepointAndTheOuterOneCommits() throws {
            let connection = try TestDatabase.connect()
            try connection.execute("CREATE TEMP TABLE numbers (n integer)")
            try connection.transaction { connection in
                try connection.execute("INSERT INTO numbers VALUES (1)")
                let error = #expect(throws: PostgresError.self) {
                    try connection.transaction { connection in
                        try connection.execute("INSERT INTO numbers VALUES (2)")
                        _ = try? connection.execute("SELEC 1")
                    }
                }
                #expect(error?.sqlState == "25P02")
                try connection.execute("INSERT INTO numbers VALUES (3)")
            }
            let rows = try connection.execute("SELECT n FROM numbers ORDER BY n").rows
            #expect(rows.map { $0["n"] } == ["1", "3"])
        }

        @Test func aNotificationFromAnotherConnectionIsReceived() throws {
            let channel = TestDatabase.uniqueName()
            let listener = try TestDatabase.connect()
            let sender = try TestDatabase.connect()
            try listener.listen(channel)
            try sender.execute("SELECT pg_notify($1, $2)", [channel, "hello"])
            var received: [PostgresNotification] = []
            let deadline = Date().addingTimeInterval(20)
            while received.isEmpty, Date() < deadline {
                received += try listener.waitForNotifications(timeout: 1)
            }
            #expect(received.map(\.channel) == [channel])
            #expect(received.map(\.payload) == ["hello"])
        }

        @Test func notificationsSentInATransactionArriveOnlyAfterItCommits() throws {
            let channel = TestDatabase.uniqueName()
            let listener = try TestDatabase.connect()
            let sender = try TestDatabase.connect()
            try listener.listen(channel)
            try sender.transaction { sender in
                try sender.execute("SELECT pg_notify($1, 'first')", [channel])
                try sender.execute("SELECT pg_notify($1, 'second')", [channel])
                #expect(try listener.waitForNotifications(timeout: 0.2).isEmpty)
            }
            var received: [PostgresNotification] = []
            let deadline = Date().addingTimeInterval(20)
            while received.count < 2, Date() < deadline {
                received += try listener.waitForNotifications(timeout: 1)
            }
            #expect(received.map(\.payload) == ["first", "second"])
        }

        @Test func waitingForNotificationsReturnsNoneAfterItsTimeoutWhenNothingArrives() throws {
            let listener = try TestDatabase.connect()
            try listener.listen(TestDatabase.uniqueName())
            #expect(try listener.waitForNotifications(timeout: 0.2).isEmpty)
            #expect(try listener.waitForNotifications(timeout: 0).isEmpty)
        }

        @Test(arguments: [
            (PostgresError(kind: .connectionLost, message: ""), true),
            (PostgresError(kind: .connectionFailed, message: ""), true),
            (PostgresError(kind: .statementFailed, sqlState: "40001", message: ""), true),
            (PostgresError(kind: .statementFailed, sqlState: "40P01", message: ""), true),
            (PostgresError(kind: .statementFailed, sqlState: "08006", message: ""), true),
            (PostgresError(kind: .statementFailed, sqlState: "57P01", message: ""), true),
            (PostgresError(kind: .statementFailed, sqlState: "23505", message: ""), false),
            (PostgresError(kind: .statementFailed, message: ""), false),
            (PostgresError(kind: .unexpectedResult, message: ""), false),
        ])
        func onlyLostConnectionsDeadlocksAndSerializationFailuresAreTransient(error: PostgresError, transient: Bool) {
            #expect(error.isTransient == transient)
        }
    }
#endif
