#if Postgres
    import Foundation

    /// The events of a queue's jobs in this process.
    extension DurableQueue {
        /// A stream of the events of this queue's jobs in this process, from now on: the jobs enqueued through this
        /// queue (one by one, in batches, in graphs) and the periodic jobs its workers enqueue, and the claims and
        /// outcomes of every ``DurableWorker`` built on it.
        ///
        /// ```swift
        /// let events = queue.events()
        /// Task {
        ///     for await event in events where event.kind == .failed {
        ///         log("\(event.job) (\(event.jobKind)) failed: \(event.error ?? "")")
        ///     }
        /// }
        /// ```
        ///
        /// An event is published once the change it announces has committed, on the thread that committed it
        /// (a caller's, or a worker's database thread); the stream hands it to its consumer's task. Events of other
        /// processes, and changes made without a worker or an enqueue of this queue (a cancellation of a job that
        /// has not started, the reaper requeuing an expired lease, an operator's retry), publish nothing: the
        /// database is the record (``DurableQueue/attempts(of:)``), the stream a live view. An enqueue inside a
        /// transaction the caller began with its own `BEGIN`, not with ``withTransaction(_:)-6mk7i`` or
        /// ``PostgresConnection/transaction(_:)``, publishes nothing either: its commit is not seen.
        ///
        /// Cancellation: the stream ends when the consuming task is cancelled; releasing it stops its delivery.
        ///
        /// - Parameter limit: The most events the stream keeps unread (at least 1): a consumer that falls further
        ///   behind loses the oldest (``DurableJobEvents/droppedCount``).
        public func events(bufferingNewest limit: Int = 10_000) -> DurableJobEvents {
            eventHub.subscribe(bufferingNewest: limit)
        }

        /// Inserts `job` as ``DurableStore/insert(_:_:)`` does, in the caller's transaction, and publishes its
        /// ``DurableJobEvent/Kind/inserted`` event once that transaction commits, unless a unique key named a job that
        /// exists already.
        func insertAnnounced(_ job: DurableStore.NewJob, worker: String? = nil, _ connection: PostgresConnection)
            throws -> JobID
        {
            // Nobody listens: not a statement more.
            guard eventHub.hasSubscribers else { return try store.insert(job, connection) }
            let (id, isNew) = try store.insertReporting(job, connection)
            guard isNew else { return id }
            let event = DurableJobEvent(
                kind: .inserted, job: id, jobKind: job.kind, queue: job.options.queue, attempt: 0, worker: worker)
            connection.afterCommit { [eventHub] in eventHub.publish([event]) }
            return id
        }

        /// Inserts a batch as ``DurableStore/insertBatch(kind:inputs:options:_:)`` does, in the caller's transaction,
        /// and publishes its ``DurableJobEvent/Kind/inserted`` events once that transaction commits.
        func insertBatchAnnounced(
            kind: String, inputs: [String], options: DurableJobOptions, _ connection: PostgresConnection
        ) throws -> [JobID] {
            let ids = try store.insertBatch(kind: kind, inputs: inputs, options: options, connection)
            guard eventHub.hasSubscribers else { return ids }
            let events = ids.map {
                DurableJobEvent(kind: .inserted, job: $0, jobKind: kind, queue: options.queue, attempt: 0)
            }
            connection.afterCommit { [eventHub] in eventHub.publish(events) }
            return ids
        }
    }
#endif
