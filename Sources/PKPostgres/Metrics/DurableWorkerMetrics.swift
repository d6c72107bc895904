#if Postgres
    /// What a worker has done and holds now, for an exporter to read (``DurableWorker/metrics``): its counters, the
    /// time its claim statements take, and its gauges. ``PrometheusExposition`` renders it.
    ///
    /// The jobs in each state, across the fleet, come from the database instead
    /// (``DurableQueue/queueStatistics()``).
    public struct DurableWorkerMetrics: Sendable, Hashable {
        /// The worker's name (``DurableWorker/name``).
        public var worker: String
        /// The counters of jobs claimed and outcomes recorded (``DurableWorker/statistics``).
        public var statistics: DurableWorker.Statistics
        /// Heartbeats that reached the database (one statement each, renewing every lease the worker holds).
        public var heartbeats: Int
        /// Leases renewed by those heartbeats, one per running job each time.
        public var leaseRenewals: Int
        /// Claim statements run (each claims up to the worker's free slots, possibly none).
        public var claimStatements: Int
        /// How long the claim statements took, from sending to reading every row.
        public var claimDuration: DurableLatencyHistogram
        /// The jobs running now (``DurableWorker/runningJobs``).
        public var runningJobs: Int
        /// The most jobs the worker runs at once (``DurableWorker/concurrency``).
        public var slots: Int

        /// What a worker counts besides its ``DurableWorker/Statistics``; behind its own lock.
        struct Counters: Sendable {
            var heartbeats = 0
            var leaseRenewals = 0
            var claimStatements = 0
            var claimDuration = DurableLatencyHistogram()
        }
    }
#endif
