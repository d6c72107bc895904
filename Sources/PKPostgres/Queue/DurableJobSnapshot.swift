#if Postgres
    import Foundation

    /// A durable job as the database holds it at one moment (``DurableQueue/job(_:)``).
    public struct DurableJobSnapshot: Sendable, Hashable {
        /// The job.
        public let id: JobID
        /// Its procedure kind.
        public let kind: String
        /// The named queue it waits or waited in (``DurableJobOptions/queue``).
        public let queue: String
        /// Its input as stored (JSON), or `nil` when it takes a dependency's output (``DurableJobOptions/inputFrom``).
        public let inputJSON: String?
        /// Its state.
        public let state: JobState
        /// Attempts begun so far.
        public let attempt: Int
        /// The most attempts allowed.
        public let maxAttempts: Int
        /// Its priority.
        public let priority: Int32
        /// When it may next start.
        public let runAt: Date
        /// When it was enqueued.
        public let createdAt: Date
        /// When it finished, if it did.
        public let finishedAt: Date?
        /// Its error history, oldest first: failed attempts, expired leases, cancellation reasons.
        public let errors: [String]
        /// The worker holding its lease, while it runs.
        public let leaseOwner: String?
        /// Its graph, if any.
        public let graph: GraphID?
        /// Its output's JSON, once completed.
        public let outputJSON: String?
        /// Dependencies not yet finished.
        public let pendingDependencies: Int
        /// Whether a cancellation was requested while it ran.
        public let isCancelRequested: Bool
        /// The metadata given at enqueue (``DurableJobOptions/metadata``) and recorded while it ran
        /// (``DurableJobInfo/recordMetadata(_:)``).
        public let metadata: [String: String]
        /// The fraction done (0 to 1) its latest attempt reported (PKCore's `reportProgress`, written by the worker
        /// about once a second while it runs); 1 once it completed; `nil` when the attempt reported nothing.
        public let progress: Double?
        /// The message of the latest progress report, if it had one.
        public let progressMessage: String?

        init(row: PostgresRow) throws {
            id = JobID(rawValue: try row.int64("id"))
            kind = row["kind"] ?? ""
            queue = row["queue"] ?? DurableJobOptions.defaultQueue
            inputJSON = row["input"]
            guard let state = JobState(databaseValue: row["state"] ?? "") else {
                throw PostgresError(kind: .unexpectedResult, message: "unknown job state \(row["state"] ?? "NULL")")
            }
            self.state = state
            attempt = Int(try row.int64("attempt"))
            maxAttempts = Int(try row.int64("max_attempts"))
            priority = Int32(clamping: try row.int64("priority"))
            runAt = Date(timeIntervalSince1970: row["run_at"].flatMap(Double.init) ?? 0)
            createdAt = Date(timeIntervalSince1970: row["created_at"].flatMap(Double.init) ?? 0)
            finishedAt = row["finished_at"].flatMap(Double.init).map(Date.init(timeIntervalSince1970:))
            errors = (try? JSONDecoder().decode([String].self, from: Data((row["errors"] ?? "[]").utf8))) ?? []
            leaseOwner = row["lease_owner"]
            graph = row["graph_id"].flatMap(Int64.init).map(GraphID.init(rawValue:))
            outputJSON = row["output"]
            pendingDependencies = Int(try row.int64("pending_dependencies"))
            isCancelRequested = try row.bool("cancel_requested")
            metadata =
                (try? JSONDecoder().decode([String: String].self, from: Data((row["metadata"] ?? "{}").utf8))) ?? [:]
            progress = row["progress"].flatMap(Double.init)
            progressMessage = row["progress_message"]
        }
    }

    /// How many jobs of a graph are in each state (``DurableQueue/graph(_:)``).
    public struct DurableGraphSummary: Sendable, Hashable, CustomStringConvertible {
        /// The graph.
        public let id: GraphID
        /// The count of jobs in each state; states with none are absent.
        public let counts: [JobState: Int]

        /// All its jobs.
        public var total: Int { counts.values.reduce(0, +) }
        /// Whether every job is in a final state.
        public var isFinished: Bool { counts.allSatisfy { $0.key.isFinished } }
        /// Whether every job completed.
        public var isCompleted: Bool { total > 0 && counts[.completed] == total }

        /// `graph #n: 3 completed, 1 running`.
        public var description: String {
            let parts = JobState.allCases.compactMap { state in counts[state].map { "\($0) \(state)" } }
            return "\(id): " + (parts.isEmpty ? "no jobs" : parts.joined(separator: ", "))
        }
    }
#endif
