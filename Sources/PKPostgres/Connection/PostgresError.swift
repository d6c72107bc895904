#if Postgres
    /// An error from PostgreSQL or from libpq, the client PKPostgres talks to it through.
    ///
    /// Match on ``kind``; ``sqlState`` carries PostgreSQL's five-character error code when the server sent one
    /// (for example `40P01` for a deadlock, `23505` for a unique violation). The message is the server's or
    /// libpq's text; it never contains the connection string's password.
    public struct PostgresError: Error, Sendable, Hashable, CustomStringConvertible {

        /// What went wrong, broadly.
        public enum Kind: Sendable, Hashable {
            /// A connection could not be opened (bad connection string, server down, authentication refused).
            case connectionFailed
            /// An open connection broke (the server restarted, the network dropped); open a new one.
            case connectionLost
            /// The server refused or failed a statement.
            case statementFailed
            /// The server's answer was not what PKPostgres expected (a missing column, an unparsable value).
            case unexpectedResult
        }

        /// What went wrong, broadly.
        public let kind: Kind
        /// PostgreSQL's SQLSTATE code, when the server sent one.
        public let sqlState: String?
        /// The server's or libpq's message.
        public let message: String

        /// Creates an error.
        public init(kind: Kind, sqlState: String? = nil, message: String) {
            self.kind = kind
            self.sqlState = sqlState
            self.message = message
        }

        /// Whether retrying the whole transaction may succeed: a lost connection, a deadlock or a serialization
        /// failure.
        public var isTransient: Bool {
            switch kind {
            case .connectionFailed, .connectionLost: return true
            case .unexpectedResult: return false
            case .statementFailed:
                guard let sqlState else { return false }
                // 40001 serialization_failure, 40P01 deadlock_detected, 57P01 admin_shutdown,
                // 57P02 crash_shutdown, 57P03 cannot_connect_now, class 08 connection exceptions.
                return ["40001", "40P01", "57P01", "57P02", "57P03"].contains(sqlState) || sqlState.hasPrefix("08")
            }
        }

        /// The kind, the SQLSTATE when there is one, and the message.
        public var description: String {
            let code = sqlState.map { " [\($0)]" } ?? ""
            return "PostgreSQL \(kind)\(code): \(message)"
        }
    }
#endif
