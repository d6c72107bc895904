#if Postgres
    import Foundation

    /// What the dashboard shows besides listings (`pk-jobs serve`): a job's dependency graph, the workers, the
    /// periodic jobs and the jobs finished per minute. Read-only; safe to call while workers run, from any process.
    extension DurableQueue {
        /// Job `id` with every job it depends on, transitively, and every job that depends on it, at most `limit`
        /// jobs (nearest first), and the dependencies among them.
        ///
        /// - Throws: ``DurableError/jobNotFound(_:)``; ``DurableError/invalidOption(_:)`` for a limit outside
        ///   1...10,000.
        public func dependencyGraph(of id: JobID, limit: Int = 500) async throws -> DurableDependencyGraph {
            guard (1...10_000).contains(limit) else {
                throw DurableError.invalidOption("a graph's limit must be between 1 and 10,000, not \(limit)")
            }
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                guard let graph = try store.dependencyGraph(of: id, limit: limit, connection) else {
                    throw DurableError.jobNotFound(id)
                }
                return graph
            }
        }

        /// The workers running now (and those that died less than an hour ago: their last heartbeat is old), with
        /// the jobs each holds, by name.
        public func workers() async throws -> [DurableWorkerStatus] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.workers(connection)
            }
        }

        /// The periodic jobs the fleet's workers declare, with the latest period enqueued and the next, by name.
        public func periodicJobs() async throws -> [DurablePeriodicStatus] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.periodicJobs(connection)
            }
        }

        /// The jobs finished per minute and named queue over the last `minutes` minutes, the current one included,
        /// oldest first; a minute in which a queue finished nothing is absent.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for `minutes` outside 1...1,440.
        public func throughput(minutes: Int = 15) async throws -> [DurableThroughput] {
            guard (1...1_440).contains(minutes) else {
                throw DurableError.invalidOption("minutes must be between 1 and 1,440, not \(minutes)")
            }
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.throughput(minutes: minutes, connection)
            }
        }
    }
#endif
