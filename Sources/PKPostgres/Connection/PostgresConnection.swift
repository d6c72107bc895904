#if Postgres
    import CLibPQ
    import Foundation

    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// One connection to PostgreSQL through libpq, PostgreSQL's own C client.
    ///
    /// **Not thread-safe.** A connection is used by one thread at a time, as libpq requires; every method blocks the
    /// calling thread until the server answers. Never call it on Swift's cooperative thread pool or on a
    /// `ProcedureQueue`'s threads: PKPostgres runs its own connections on threads of its own, and hands yours to
    /// you only inside a closure it runs on such a thread (``DurableQueue/withTransaction(_:)-6mk7i``,
    /// ``DurableProcedure/willCompleteDurably(_:output:in:)``).
    ///
    /// Parameters are passed separately from the SQL (`$1`, `$2`, …) in PostgreSQL's text format, so values are
    /// never spliced into statements: cast in SQL where the type matters (`$1::bigint`).
    public final class PostgresConnection {
        private var handle: OpaquePointer?
        /// Removes the connection string's passwords from every message this connection puts in an error.
        private let secrets: ConnectionSecrets
        /// What to do once the transaction ``transaction(_:)`` opened commits (``afterCommit(_:)``).
        private var committedWork: [() -> Void] = []
        /// How many calls of ``transaction(_:)`` are running on this connection.
        private var transactionDepth = 0

        /// Defaults that `connectionString` can override: TCP keepalives and a user timeout, so that a connection
        /// whose peer vanished (a half-open TCP connection) fails within seconds instead of blocking a worker's
        /// heartbeat for the kernel's two hours; a 10 s connect timeout. libpq ignores them on Unix sockets.
        static let defaults: [(String, String)] = [
            ("keepalives", "1"), ("keepalives_idle", "10"), ("keepalives_interval", "5"), ("keepalives_count", "3"),
            ("tcp_user_timeout", "10000"), ("connect_timeout", "10"),
        ]

        /// Opens a connection. `connectionString` is anything libpq accepts: `postgresql://user@host/db`, or
        /// `host=/tmp/socket dbname=app`.
        ///
        /// TCP keepalives and timeouts apply unless `connectionString` sets its own (see the guide).
        ///
        /// - Throws: ``PostgresError`` with kind ``PostgresError/Kind/connectionFailed``.
        public init(_ connectionString: String) throws {
            secrets = ConnectionSecrets(connectionString)
            // `dbname` is expanded as a whole connection string (URI or key=value) after the defaults, so the
            // caller's settings win.
            let pairs = Self.defaults + [("dbname", connectionString)]
            let keywords = pairs.map { strdup($0.0) } + [nil]
            let values = pairs.map { strdup($0.1) } + [nil]
            defer { for pointer in keywords + values { free(pointer) } }
            let made: OpaquePointer? = keywords.withUnsafeBufferPointer { keywordBuffer in
                values.withUnsafeBufferPointer { valueBuffer in
                    keywordBuffer.baseAddress!.withMemoryRebound(
                        to: UnsafePointer<CChar>?.self, capacity: pairs.count + 1
                    ) {
                        keywordPointer in
                        valueBuffer.baseAddress!.withMemoryRebound(
                            to: UnsafePointer<CChar>?.self, capacity: pairs.count + 1
                        ) {
                            PQconnectdbParams(keywordPointer, $0, 1)
                        }
                    }
                }
            }
            guard let connection = made else {
                throw PostgresError(kind: .connectionFailed, message: "libpq could not allocate a connection")
            }
            guard PQstatus(connection) == CONNECTION_OK else {
                let message = secrets.redact(Self.trimmed(PQerrorMessage(connection)))
                PQfinish(connection)
                throw PostgresError(kind: .connectionFailed, message: message)
            }
            // The server's NOTICEs (`relation already exists, skipping`) would go to standard error otherwise.
            PQsetNoticeProcessor(connection, { _, _ in }, nil)
            handle = connection
        }

        deinit {
            if let handle { PQfinish(handle) }
        }

        /// Closes the connection; later calls throw ``PostgresError/Kind/connectionLost``.
        public func close() {
            if let handle { PQfinish(handle) }
            handle = nil
        }

        /// Whether the connection is open and usable.
        public var isOpen: Bool {
            guard let handle else { return false }
            return PQstatus(handle) == CONNECTION_OK
        }

        /// Whether a transaction is open on this connection.
        public var isInTransaction: Bool {
            guard let handle else { return false }
            return PQtransactionStatus(handle) != PQTRANS_IDLE
        }

        /// The server process serving this connection (`pg_backend_pid()`), for diagnostics and tests.
        public var serverProcessID: Int32 {
            guard let handle else { return 0 }
            return PQbackendPID(handle)
        }

        /// Runs one statement with `parameters` bound to `$1`, `$2`, … (`nil` is `NULL`) and returns its rows.
        /// Without parameters, `sql` may hold several statements separated by semicolons; the last one's rows are
        /// returned.
        ///
        /// - Throws: ``PostgresError``: ``PostgresError/Kind/statementFailed`` with the server's SQLSTATE, or
        ///   ``PostgresError/Kind/connectionLost`` when the connection broke.
        @discardableResult
        public func execute(_ sql: String, _ parameters: [String?] = []) throws -> PostgresResult {
            let connection = try open()
            let copies = parameters.map { $0.map { strdup($0) } ?? nil }
            defer { for copy in copies { free(copy) } }
            // Without parameters, PQexec: it also runs several statements separated by semicolons (migrations).
            let result: OpaquePointer? =
                copies.isEmpty
                ? PQexec(connection, sql)
                : copies.withUnsafeBufferPointer { buffer in
                    buffer.baseAddress!.withMemoryRebound(
                        to: UnsafePointer<CChar>?.self, capacity: max(buffer.count, 1)
                    ) {
                        PQexecParams(connection, sql, Int32(copies.count), nil, copies.isEmpty ? nil : $0, nil, nil, 0)
                    }
                }
            guard let result else { throw lostOrFailed(connection) }
            defer { PQclear(result) }
            switch PQresultStatus(result) {
            case PGRES_COMMAND_OK, PGRES_TUPLES_OK, PGRES_EMPTY_QUERY:
                return Self.read(result)
            default:
                if PQstatus(connection) != CONNECTION_OK { throw lostOrFailed(connection) }
                let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
                throw PostgresError(
                    kind: .statementFailed, sqlState: state,
                    message: secrets.redact(Self.trimmed(PQresultErrorMessage(result))))
            }
        }

        /// Runs `body` in a transaction: commits when it returns, rolls back when it throws. Inside another
        /// transaction it uses a savepoint, so transactions nest.
        ///
        /// A statement error that `body` catches and does not rethrow still aborts the transaction on the server;
        /// then nothing of it can commit, so `transaction` rolls it back and throws ``PostgresError`` with SQLSTATE
        /// `25P02` (`in_failed_sql_transaction`) instead of reporting success.
        public func transaction<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
            let nested = isInTransaction
            let savepoint = "pk_savepoint"
            let workMark = committedWork.count
            transactionDepth += 1
            defer {
                transactionDepth -= 1
                // Outermost here, inside a transaction the caller began itself: its commit is not ours to see.
                if transactionDepth == 0, nested { committedWork = [] }
            }
            try execute(nested ? "SAVEPOINT \(savepoint)" : "BEGIN")
            do {
                let value = try body(self)
                if let handle, PQtransactionStatus(handle) == PQTRANS_INERROR {
                    throw PostgresError(
                        kind: .statementFailed, sqlState: "25P02",
                        message: "a statement failed inside the transaction and the error was not rethrown; the "
                            + "transaction was aborted by the server and is rolled back")
                }
                if nested {
                    try execute("RELEASE SAVEPOINT \(savepoint)")
                } else if try commit() != "COMMIT" {
                    throw PostgresError(
                        kind: .statementFailed, sqlState: "25P02",
                        message: "the server rolled the transaction back instead of committing it")
                }
                if !nested { runCommittedWork() }
                return value
            } catch {
                committedWork.removeSubrange(min(workMark, committedWork.count)...)
                if isOpen, let handle, PQtransactionStatus(handle) != PQTRANS_IDLE {
                    _ = try? execute(nested ? "ROLLBACK TO SAVEPOINT \(savepoint)" : "ROLLBACK")
                }
                throw error
            }
        }

        /// Runs `work` on this thread once the transaction that ``transaction(_:)`` opened (the outermost) commits;
        /// forgets it when that transaction, or the savepoint open now, rolls back. Outside such a transaction (none
        /// open, or one the caller began with its own `BEGIN`), `work` is forgotten: its commit is never seen.
        func afterCommit(_ work: @escaping () -> Void) {
            guard transactionDepth > 0 else { return }
            committedWork.append(work)
        }

        private func runCommittedWork() {
            let work = committedWork
            committedWork = []
            for item in work { item() }
        }

        /// Sends `COMMIT` and returns the server's command tag: `COMMIT`, or `ROLLBACK` for an aborted transaction.
        private func commit() throws -> String {
            let connection = try open()
            guard let result = PQexec(connection, "COMMIT") else { throw lostOrFailed(connection) }
            defer { PQclear(result) }
            guard PQresultStatus(result) == PGRES_COMMAND_OK else {
                if PQstatus(connection) != CONNECTION_OK { throw lostOrFailed(connection) }
                let state = PQresultErrorField(result, Int32(UInt8(ascii: "C"))).map { String(cString: $0) }
                throw PostgresError(
                    kind: .statementFailed, sqlState: state,
                    message: secrets.redact(Self.trimmed(PQresultErrorMessage(result))))
            }
            return PQcmdStatus(result).map { String(cString: $0) } ?? ""
        }

        // MARK: - LISTEN / NOTIFY

        /// Starts listening to `channel` (an SQL identifier: letters, digits and `_`).
        public func listen(_ channel: String) throws {
            try execute("LISTEN \(Self.quotedIdentifier(channel))")
        }

        /// Waits up to `timeout` seconds for notifications on the channels this connection listens to, and
        /// returns those that arrived (possibly none). It also returns early, with none, when `wakeDescriptor`
        /// becomes readable (a pipe another thread writes to).
        ///
        /// - Throws: ``PostgresError/Kind/connectionLost`` when the connection broke while waiting.
        public func waitForNotifications(timeout: TimeInterval, wakeDescriptor: Int32? = nil) throws
            -> [PostgresNotification]
        {
            let connection = try open()
            var received = try drainNotifications(connection)
            guard received.isEmpty else { return received }
            let socket = PQsocket(connection)
            guard socket >= 0 else { throw lostOrFailed(connection) }
            var descriptors = [pollfd(fd: socket, events: Int16(POLLIN), revents: 0)]
            if let wakeDescriptor { descriptors.append(pollfd(fd: wakeDescriptor, events: Int16(POLLIN), revents: 0)) }
            let milliseconds = Int32(clamping: Int64((max(0, min(timeout, 3_600)) * 1_000).rounded(.up)))
            let ready = poll(&descriptors, nfds_t(descriptors.count), milliseconds)
            if ready < 0, errno != EINTR {
                throw PostgresError(kind: .connectionLost, message: "poll failed: errno \(errno)")
            }
            if descriptors[0].revents != 0 {
                guard PQconsumeInput(connection) == 1 else { throw lostOrFailed(connection) }
                received = try drainNotifications(connection)
            }
            return received
        }

        private func drainNotifications(_ connection: OpaquePointer) throws -> [PostgresNotification] {
            guard PQconsumeInput(connection) == 1 else { throw lostOrFailed(connection) }
            var received: [PostgresNotification] = []
            while let notice = PQnotifies(connection) {
                received.append(
                    PostgresNotification(
                        channel: String(cString: notice.pointee.relname),
                        payload: notice.pointee.extra.map { String(cString: $0) } ?? ""))
                PQfreemem(notice)
            }
            return received
        }

        // MARK: - Helpers

        /// `identifier` quoted for SQL (`"name"`), its quotes doubled.
        static func quotedIdentifier(_ identifier: String) -> String {
            "\"" + identifier.replacingOccurrences(of: "\"", with: "\"\"") + "\""
        }

        private func open() throws -> OpaquePointer {
            guard let handle else { throw PostgresError(kind: .connectionLost, message: "the connection is closed") }
            guard PQstatus(handle) == CONNECTION_OK else { throw lostOrFailed(handle) }
            return handle
        }

        private func lostOrFailed(_ connection: OpaquePointer) -> PostgresError {
            let message = secrets.redact(Self.trimmed(PQerrorMessage(connection)))
            if PQstatus(connection) != CONNECTION_OK {
                return PostgresError(kind: .connectionLost, message: message.isEmpty ? "connection lost" : message)
            }
            return PostgresError(kind: .statementFailed, message: message)
        }

        private static func trimmed(_ message: UnsafePointer<CChar>?) -> String {
            guard let message else { return "" }
            return String(cString: message).trimmingCharacters(in: .whitespacesAndNewlines)
        }

        private static func read(_ result: OpaquePointer) -> PostgresResult {
            let columnCount = Int(PQnfields(result))
            let rowCount = Int(PQntuples(result))
            let columns = (0..<columnCount).map { String(cString: PQfname(result, Int32($0))) }
            var rows: [PostgresRow] = []
            rows.reserveCapacity(rowCount)
            for row in 0..<rowCount {
                let values: [String?] = (0..<columnCount).map { column in
                    if PQgetisnull(result, Int32(row), Int32(column)) == 1 { return nil }
                    return String(cString: PQgetvalue(result, Int32(row), Int32(column)))
                }
                rows.append(PostgresRow(columns: columns, values: values))
            }
            let affected = PQcmdTuples(result).map { Int(String(cString: $0)) ?? 0 } ?? 0
            return PostgresResult(columns: columns, rows: rows, affectedRows: affected)
        }
    }
#endif
