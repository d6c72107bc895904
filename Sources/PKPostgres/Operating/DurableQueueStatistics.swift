#if Postgres
    import Foundation

    /// How many jobs each named queue holds in each state, which queues are paused, and what an operator alerts on:
    /// the age of the oldest job waiting to run, the jobs each worker runs, and the jobs finished in the last minute
    /// (``DurableQueue/queueStatistics()``). Read in one transaction, so the numbers agree with each other.
    public struct DurableQueueStatistics: Sendable, Hashable {
        /// Jobs by queue, then by state; a queue appears once it holds a job.
        public let counts: [String: [JobState: Int]]
        /// The queues paused now, sorted.
        public let paused: [String]
        /// By queue, how long the oldest job that could run now (available and due, or due and waiting for an
        /// exclusive category) has been due; a queue with none is absent. A growing age means the queue's workers
        /// do not keep up (or the queue is paused).
        public let oldestAvailableAge: [String: Duration]
        /// By worker (``DurableWorker/name``), the jobs it holds the lease of now.
        public let runningByWorker: [String: Int]
        /// By queue, then by final state, the jobs that finished in the last 60 seconds: the throughput.
        public let finishedLastMinute: [String: [JobState: Int]]

        /// The jobs of `queue` in `state`.
        public func count(queue: String, state: JobState) -> Int { counts[queue]?[state] ?? 0 }
    }
#endif
