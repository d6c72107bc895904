#if Postgres
    import Foundation
    import PKPostgres

    /// The throwaway server the suites run against: `PK_POSTGRES_URL` (Scripts/test.sh sets it from
    /// `Scripts/postgres.sh url`). Suites are enabled only when it is set.
    enum TestDatabase {
        /// The libpq connection string, or empty when the suites are disabled.
        static let url = ProcessInfo.processInfo.environment["PK_POSTGRES_URL"] ?? ""

        /// Whether a server was given.
        static var isAvailable: Bool { !url.isEmpty }

        /// The longest a test waits for something that should happen: reaching it means a hang, and fails.
        static let hangTimeout: Duration = .seconds(20)

        /// A lease short enough that an expired one is noticed quickly, long enough for a loaded machine to renew
        /// it (heartbeats come every third of it).
        static let lease: Duration = .seconds(2)

        /// The fallback poll of the tests' workers.
        static let pollInterval: Duration = .milliseconds(100)

        /// A schema name no other test uses: `t_` and 16 random lower-case hex digits.
        static func uniqueName() -> String {
            "t_" + String(UInt64.random(in: 0...UInt64.max), radix: 16)
        }

        /// Opens a connection of the test's own. Blocks: call it in synchronous tests or on a thread of its own.
        static func connect() throws -> PostgresConnection {
            try PostgresConnection(url)
        }

        /// Drops `schema` and everything in it, if it exists, on the server `server` names (by default the shared
        /// one). Blocks.
        static func dropSchema(_ schema: String, on server: String = url) throws {
            let connection = try PostgresConnection(server)
            defer { connection.close() }
            try connection.execute("DROP SCHEMA IF EXISTS \(schema) CASCADE")
        }
    }
#endif
