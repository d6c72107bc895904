#if Postgres
    import Dispatch
    import Foundation

    /// One connection and the serial dispatch queue that is the only place it is used: blocking libpq calls run
    /// there, never on the cooperative pool or on a `ProcedureQueue`'s threads. Opens the connection when first
    /// needed and again after it broke (the call that saw it break throws ``PostgresError/Kind/connectionLost``).
    ///
    /// `@unchecked Sendable`: `connection` is read and written only on `queue`, a serial queue, which is its lock
    /// (checked with `dispatchPrecondition`).
    final class DatabaseLane: @unchecked Sendable {
        let queue: DispatchQueue
        private let connectionString: String
        private var connection: PostgresConnection?
        /// Run on every new connection before use (LISTEN, …).
        private let prepare: (@Sendable (PostgresConnection) throws -> Void)?

        init(label: String, connectionString: String, prepare: (@Sendable (PostgresConnection) throws -> Void)? = nil) {
            queue = DispatchQueue(label: label)
            self.connectionString = connectionString
            self.prepare = prepare
        }

        /// Runs `body` with the connection on this lane's queue, blocking the caller.
        func sync<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
            try queue.sync { try onQueue(body) }
        }

        /// Runs `body` with the connection on this lane's queue; the awaiting task is suspended, not blocked.
        func run<T: Sendable>(_ body: @escaping @Sendable (PostgresConnection) throws -> T) async throws -> T {
            try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { try self.onQueue(body) })
                }
            }
        }

        /// Runs `body` with the connection; call only on ``queue``.
        func onQueue<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
            dispatchPrecondition(condition: .onQueue(queue))
            let connection = try current()
            do {
                return try body(connection)
            } catch let error as PostgresError where !connection.isOpen {
                self.connection = nil
                throw PostgresError(kind: .connectionLost, sqlState: error.sqlState, message: error.message)
            }
        }

        /// Closes the connection (on the queue).
        func close() {
            queue.sync {
                connection?.close()
                connection = nil
            }
        }

        private func current() throws -> PostgresConnection {
            if let connection, connection.isOpen { return connection }
            connection = nil
            let fresh = try PostgresConnection(connectionString)
            try prepare?(fresh)
            connection = fresh
            return fresh
        }
    }
#endif
