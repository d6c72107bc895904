#if Postgres
    import Foundation

    /// Operating a queue: what an operator (or the `pk-jobs` admin tool) reads and does. Every member is safe to
    /// call while workers run, from any process: each action locks the rows it changes as the workers do, so it
    /// never races an outcome being recorded.
    extension DurableQueue {

        // MARK: - Reading

        /// The jobs `filter` matches, by id, at most `filter.limit` of them; pass the last id as
        /// ``DurableJobFilter/afterID`` for the next page.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for a limit out of range.
        public func jobs(_ filter: DurableJobFilter = DurableJobFilter()) async throws -> [DurableJobSnapshot] {
            try filter.validate()
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.jobs(filter, connection)
            }
        }

        /// The attempts of a job that started, in order: which worker ran each, when, and how it ended.
        ///
        /// - Throws: ``DurableError/jobNotFound(_:)``.
        public func attempts(of id: JobID) async throws -> [DurableAttempt] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                guard try store.snapshot(of: id, connection) != nil else { throw DurableError.jobNotFound(id) }
                return try store.attempts(of: id, connection)
            }
        }

        /// The attempts of `ids` that ended with an error, by job (for a listing's error histories).
        public func failedAttempts(of ids: [JobID]) async throws -> [JobID: [DurableAttempt]] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.failedAttempts(of: ids, connection)
            }
        }

        /// How many jobs each named queue holds in each state, and which queues are paused. Counts every row: on
        /// a very large table, prefer a listing with a filter.
        public func queueStatistics() async throws -> DurableQueueStatistics {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.queueStatistics(connection)
            }
        }

        // MARK: - Actions

        /// Runs failed or cancelled jobs again: each becomes available now, with one more attempt allowed when its
        /// attempts are spent; its history is kept. Jobs in other states are left alone. Returns the jobs retried.
        ///
        /// A retried job does not wait for its dependencies again, and jobs cancelled because it failed stay
        /// cancelled: retry them too (``retry(matching:)`` with their graph's filter), after it. A job whose unique
        /// key (``DurableJobOptions/unique``) another job holds now is skipped: it would be a duplicate.
        public func retry(_ ids: [JobID]) async throws -> [JobID] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.retry(ids, connection)
            }
        }

        /// Retries every failed or cancelled job `filter` matches (its ``DurableJobFilter/limit`` is ignored), in
        /// transactions of 1,000 jobs. Returns how many were retried.
        public func retry(matching filter: DurableJobFilter) async throws -> Int {
            var unlimited = filter
            unlimited.limit = 10_000
            try unlimited.validate()
            let bounded = unlimited
            // A batch per turn on the queue's connection, so that other requests (a dashboard's) go between them.
            var retried = 0
            var after = bounded.afterID
            while true {
                let from = after
                let (ids, count) = try await lane.run { [self] connection in
                    try migrateOnce(connection)
                    let ids = try store.retryable(bounded, after: from, batch: 1_000, connection)
                    return (ids, try store.retry(ids, connection).count)
                }
                retried += count
                guard ids.count == 1_000, let last = ids.last else { return retried }
                after = last
            }
        }

        /// Deletes jobs for good, with their history, freeing their unique keys. A running job, and one that an
        /// unfinished job (not itself being deleted) depends on, is kept: cancel it, or delete its dependents
        /// first. Returns the jobs deleted.
        public func delete(_ ids: [JobID]) async throws -> [JobID] {
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.delete(ids, connection)
            }
        }

        /// Deletes jobs in `state` (a final state) that finished more than `age` ago, except those an unfinished
        /// job still depends on (a retention run by state: `.zero` prunes every one), and returns how many; see
        /// ``prune(finishedBefore:)``.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` unless `state` is final.
        public func prune(state: JobState, finishedBefore age: Duration) async throws -> Int {
            guard state.isFinished else {
                throw DurableError.invalidOption("only finished jobs are pruned, not \(state) ones")
            }
            let seconds = Swift.min(age.timeInterval, 9e10)
            return try await lane.run { [self] connection in
                try migrateOnce(connection)
                return try store.prune(olderThan: max(0, seconds), states: [state], connection)
            }
        }

        /// Pauses a named queue fleet-wide: no worker claims its jobs from its next claim on (jobs running go on).
        /// Pausing a paused queue, or one that holds no job yet, is allowed.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for a name that cannot name a queue.
        public func pause(queue name: String) async throws {
            try await setPaused(true, queue: name)
        }

        /// Resumes a paused named queue: its workers are woken and claim its jobs again.
        public func resume(queue name: String) async throws {
            try await setPaused(false, queue: name)
        }

        /// Sets the most jobs of a named queue that run at once across the whole fleet (`nil`: no limit, the
        /// default), from the workers' next claims on. Claims of a limited queue take turns on the queue's row, so
        /// the limit holds however many workers claim; a worker waiting for room claims again within its poll
        /// interval. Each worker's own limit for the queue (``DurableWorker/queueConcurrency``) applies too.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for a bad queue name or a negative limit.
        public func setConcurrencyLimit(_ limit: Int?, queue name: String) async throws {
            try DurableJobOptions.validateQueueName(name)
            if let limit, !(0...1_000_000).contains(limit) {
                throw DurableError.invalidOption("a queue's concurrency limit must be 0 to 1,000,000, not \(limit)")
            }
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                try store.setConcurrencyLimit(limit, queue: name, connection)
            }
        }

        private func setPaused(_ paused: Bool, queue name: String) async throws {
            try DurableJobOptions.validateQueueName(name)
            try await lane.run { [self] connection in
                try migrateOnce(connection)
                try store.setPaused(paused, queue: name, connection)
            }
        }
    }
#endif
