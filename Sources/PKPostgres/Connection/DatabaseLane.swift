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

        /// Marks the lane's queue, so that a call back into the lane from its own queue is refused instead of
        /// deadlocking.
        private static let laneKey = DispatchSpecificKey<ObjectIdentifier>()

        init(label: String, connectionString: String, prepare: (@Sendable (PostgresConnection) throws -> Void)? = nil) {
            queue = DispatchQueue(label: label)
            self.connectionString = connectionString
            self.prepare = prepare
            queue.setSpecific(key: Self.laneKey, value: ObjectIdentifier(self))
        }

        /// Runs `body` with the connection on this lane's queue, blocking the caller.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` when called from the lane's own queue (a synchronous queue
        ///   method called inside ``DurableQueue/withTransaction(_:)``'s body), which would deadlock.
        func sync<T>(_ body: (PostgresConnection) throws -> T) throws -> T {
            guard DispatchQueue.getSpecific(key: Self.laneKey) != ObjectIdentifier(self) else {
                throw DurableError.invalidOption(
                    "a synchronous DurableQueue method was called inside withTransaction's body: use the overload "
                        + "that takes the transaction (in:)")
            }
            return try queue.sync { try onQueue(body) }
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

        /// Closes the connection, on the queue once the work already queued there is done; callable from any
        /// thread, the queue's own included. A later call opens a new one. With `group`, the close is part of it
        /// (so the caller learns when the work in flight is over).
        func close(in group: DispatchGroup? = nil) {
            queue.async(group: group) {
                self.connection?.close()
                self.connection = nil
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
