#if Postgres
    import Foundation

    /// A job with what it depends on, transitively, and what depends on it (``DurableQueue/dependencyGraph(of:limit:)``):
    /// the jobs as nodes and each dependency as an edge, for a picture of where a graph failed.
    public struct DurableDependencyGraph: Sendable, Hashable {
        /// A job of the graph.
        public struct Node: Sendable, Hashable {
            /// The job.
            public let id: JobID
            /// Its kind.
            public let kind: String
            /// Its state now.
            public let state: JobState
            /// How many dependencies away from the job asked about, by the longest path: negative upstream (what it
            /// depends on), positive downstream (what depends on it), 0 for the job itself. Every edge goes from a
            /// lower depth to a higher one.
            public let depth: Int
        }

        /// A dependency: `job` waits for `dependsOn`.
        public struct Edge: Sendable, Hashable {
            /// The job that depends on the other.
            public let job: JobID
            /// The job it waits for.
            public let dependsOn: JobID
        }

        /// The job asked about.
        public let root: JobID
        /// The jobs, nearest first (by the distance of their depth from 0, then id): the ones a limit keeps.
        public let nodes: [Node]
        /// The dependencies among ``nodes``.
        public let edges: [Edge]
        /// Whether jobs were left out for the limit.
        public let isTruncated: Bool
    }

    /// A worker as its heartbeat last described it (``DurableQueue/workers()``).
    public struct DurableWorkerStatus: Sendable, Hashable {
        /// Its name (``DurableWorker/name``).
        public let name: String
        /// The named queues it serves.
        public let queues: [String]
        /// The most jobs it runs at once.
        public let concurrency: Int
        /// Its lease duration, in seconds.
        public let leaseSeconds: Double
        /// When it started.
        public let startedAt: Date
        /// Its last heartbeat. A worker silent for more than a lease has probably died: its jobs are reaped when
        /// their leases expire.
        public let lastSeenAt: Date
        /// The jobs it holds now, with when each lease expires.
        public let running: [RunningJob]

        /// A job a worker holds.
        public struct RunningJob: Sendable, Hashable {
            /// The job.
            public let id: JobID
            /// Its kind.
            public let kind: String
            /// Its named queue.
            public let queue: String
            /// When its lease expires unless renewed.
            public let leaseExpiresAt: Date
        }
    }

    /// A periodic job as the fleet last enqueued it (``DurableQueue/periodicJobs()``).
    public struct DurablePeriodicStatus: Sendable, Hashable {
        /// Its name (``DurablePeriodicJob/name``).
        public let name: String
        /// The kind of job it enqueues, once a worker of this version checked it.
        public let kind: String?
        /// Its schedule, as ``DurableSchedule/description`` tells it.
        public let schedule: String?
        /// The latest period enqueued (or, before the first, when the fleet first saw it).
        public let lastPeriod: Date
        /// The next period, as the elected worker computed it at its last check.
        public let nextPeriod: Date?
    }

    /// How many jobs of a named queue finished in one minute (``DurableQueue/throughput(minutes:)``).
    public struct DurableThroughput: Sendable, Hashable {
        /// The minute's start.
        public let minute: Date
        /// The named queue.
        public let queue: String
        /// Jobs completed in that minute.
        public let completed: Int
        /// Jobs failed (for good) in that minute.
        public let failed: Int
        /// Jobs cancelled in that minute.
        public let cancelled: Int
    }
#endif
