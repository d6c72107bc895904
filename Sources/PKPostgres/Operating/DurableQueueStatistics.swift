#if Postgres
    /// How many jobs each named queue holds in each state, and which queues are paused
    /// (``DurableQueue/queueStatistics()``).
    public struct DurableQueueStatistics: Sendable, Hashable {
        /// Jobs by queue, then by state; a queue appears once it holds a job.
        public let counts: [String: [JobState: Int]]
        /// The queues paused now, sorted.
        public let paused: [String]

        /// The jobs of `queue` in `state`.
        public func count(queue: String, state: JobState) -> Int { counts[queue]?[state] ?? 0 }
    }
#endif
