#if Postgres
    /// One row of a ``PostgresResult``: its values as PostgreSQL's text format, `nil` for SQL `NULL`.
    public struct PostgresRow: Sendable, Hashable {
        /// The column names, in order.
        public let columns: [String]
        /// The values, in column order; `nil` is `NULL`.
        public let values: [String?]

        /// Creates a row.
        public init(columns: [String], values: [String?]) {
            self.columns = columns
            self.values = values
        }

        /// The value of the column named `column`, or `nil` when it is `NULL` or there is no such column.
        public subscript(_ column: String) -> String? {
            guard let index = columns.firstIndex(of: column) else { return nil }
            return values[index]
        }

        /// The value of `column` as an integer; throws when it is missing, `NULL` or not an integer.
        public func int64(_ column: String) throws -> Int64 {
            guard let text = self[column], let value = Int64(text) else {
                throw PostgresError(
                    kind: .unexpectedResult, message: "column \(column) is not an integer: \(self[column] ?? "NULL")")
            }
            return value
        }

        /// The value of `column` as a boolean (`t`/`f`); throws when it is missing or `NULL`.
        public func bool(_ column: String) throws -> Bool {
            switch self[column] {
            case "t": return true
            case "f": return false
            case let other:
                throw PostgresError(
                    kind: .unexpectedResult, message: "column \(column) is not a boolean: \(other ?? "NULL")")
            }
        }
    }

    /// What a statement returned: its rows, and how many rows it changed.
    public struct PostgresResult: Sendable, Hashable {
        /// The column names of the rows, in order.
        public let columns: [String]
        /// The rows, in the order the server sent them.
        public let rows: [PostgresRow]
        /// How many rows an `INSERT`, `UPDATE` or `DELETE` changed (0 for other statements).
        public let affectedRows: Int

        /// Creates a result.
        public init(columns: [String], rows: [PostgresRow], affectedRows: Int) {
            self.columns = columns
            self.rows = rows
            self.affectedRows = affectedRows
        }
    }

    /// A notification received on a channel the connection listens to (`LISTEN`/`NOTIFY`).
    public struct PostgresNotification: Sendable, Hashable {
        /// The channel.
        public let channel: String
        /// The payload (empty when the sender gave none).
        public let payload: String
    }
#endif
