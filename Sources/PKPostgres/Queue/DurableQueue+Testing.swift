#if Postgres
    /// What PKTesting's durable-job helpers need of a queue, `package` so that they are no part of the public API.
    extension DurableQueue {
        /// The last job id handed out (0 when none was): jobs enqueued later have greater ids.
        package func lastJobID() async throws -> Int64 {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.lastJobID(connection)
            }
        }

        /// The last job id handed out, read inside the caller's transaction.
        package func lastJobID(in transaction: PostgresConnection) throws -> Int64 {
            try migrator.ensure(transaction, inCallersTransaction: true)
            return try store.lastJobID(transaction)
        }

        /// The jobs of `kind` with ids greater than `after`, in id order, with the options they were enqueued with.
        package func storedJobs(ofKind kind: String, after: Int64) async throws -> [DurableStore.StoredJob] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.jobs(ofKind: kind, after: after, connection)
            }
        }

        /// The jobs of `kind` with ids greater than `after`, as the caller's transaction sees them (its own
        /// uncommitted inserts included).
        package func storedJobs(ofKind kind: String, after: Int64, in transaction: PostgresConnection) throws
            -> [DurableStore.StoredJob]
        {
            try migrator.ensure(transaction, inCallersTransaction: true)
            return try store.jobs(ofKind: kind, after: after, transaction)
        }

        /// Moves job `id` to the named queue `queue` unless it has started; returns the queue it was in, or `nil`
        /// when it runs or has finished.
        ///
        /// - Throws: ``DurableError/jobNotFound(_:)``; ``DurableError/invalidOption(_:)`` for a bad queue name.
        package func moveUnstartedJob(_ id: JobID, toQueue queue: String) async throws -> String? {
            try DurableJobOptions.validateQueueName(queue)
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.moveUnstarted(id, to: queue, connection)
            }
        }

        /// Puts job `id`, in whatever state, in the named queue `queue`.
        package func setQueue(of id: JobID, to queue: String) async throws {
            try DurableJobOptions.validateQueueName(queue)
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                try store.setQueue(of: id, to: queue, connection)
            }
        }
    }
#endif
