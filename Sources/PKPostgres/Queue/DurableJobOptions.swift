#if Postgres
    import Foundation

    /// How a durable job is scheduled: its named queue, priority, start time, uniqueness, dependencies, retries and
    /// mutual exclusion.
    public struct DurableJobOptions: Sendable, Hashable {
        /// The named queue the job waits in (``defaultQueue`` unless given): only workers serving that queue claim
        /// it (``DurableWorker/queues``), and pausing the queue holds it back fleet-wide. A name is 1 to 64 bytes of
        /// letters, digits, `_`, `-` and `.`.
        public var queue: String
        /// Higher runs first among available jobs (default 0).
        public var priority: Int32
        /// The earliest time the job may start; `nil` is now. A job starts within the worker's poll interval of it.
        public var runAt: Date?
        /// A key unique among all jobs kept in the table: enqueueing a second job with the same key returns the
        /// first one's id and stores nothing (`ON CONFLICT`). Pruning a finished job frees its key. For keys by kind,
        /// input, queue or period, and among chosen states, use ``unique`` instead (not both).
        public var uniqueKey: String?
        /// When a new job is a duplicate of one already enqueued (and so stores nothing and returns the existing
        /// job's id): by kind, input, queue, period and state (``DurableUniqueness``); `nil` (the default) for none.
        public var unique: DurableUniqueness?
        /// Text the job carries for operators: listed with it (``DurableJobSnapshot/metadata``), and added to while
        /// it runs (``DurableJobInfo/recordMetadata(_:)``). Keys of 1 to 200 bytes; at most 64 KiB in all.
        public var metadata: [String: String]
        /// Jobs that must finish before this one becomes available.
        public var dependencies: [JobID]
        /// When `true`, a failed or cancelled dependency counts as finished; when `false` (the default, as PKConditions'
        /// `NoFailedDependenciesCondition`) it cancels this job, and so its own dependents, transitively.
        public var ignoreFailedDependencies: Bool
        /// A dependency whose output is this job's input, instead of an input given at enqueue: the durable
        /// `injectResult(from:)`. It is added to ``dependencies`` if missing.
        public var inputFrom: JobID?
        /// Attempts and waits between them (default ``DurableRetryPolicy/standard``: 5 attempts). A worker's crash
        /// spends the attempt it was running.
        public var retry: DurableRetryPolicy
        /// Mutual-exclusion categories honoured by every worker of the database: at most one job holding any of
        /// them runs at a time, fleet-wide (PKConditions' `MutuallyExclusive`).
        public var exclusiveCategories: [String]
        /// How long one attempt may run; `nil` (the default) is the kind's ``DurableProcedure/durableTimeout``
        /// (30 minutes unless the type says otherwise). At the timeout the worker cancels the procedure with
        /// ``DurableError/timedOut(_:after:)`` and the attempt fails (and is retried as the policy allows); a
        /// procedure that ignores the cancellation is given up one lease later, so that the job can run elsewhere.
        public var timeout: Duration?

        /// Creates options; by default the job runs now, at priority 0, with up to 5 attempts
        /// (``DurableRetryPolicy/standard``) and its kind's timeout.
        public init(
            priority: Int32 = 0, runAt: Date? = nil, uniqueKey: String? = nil, dependencies: [JobID] = [],
            ignoreFailedDependencies: Bool = false, inputFrom: JobID? = nil, retry: DurableRetryPolicy = .standard,
            exclusiveCategories: [String] = [], timeout: Duration? = nil,
            queue: String = DurableJobOptions.defaultQueue,
            unique: DurableUniqueness? = nil, metadata: [String: String] = [:]
        ) {
            self.queue = queue
            self.unique = unique
            self.metadata = metadata
            self.priority = priority
            self.runAt = runAt
            self.uniqueKey = uniqueKey
            self.dependencies = dependencies
            self.ignoreFailedDependencies = ignoreFailedDependencies
            self.inputFrom = inputFrom
            self.retry = retry
            self.exclusiveCategories = exclusiveCategories
            self.timeout = timeout
        }

        /// The queue of a job enqueued without one, and the one a worker serves unless told otherwise: `default`.
        public static let defaultQueue = "default"

        /// Whether `name` can name a queue: 1 to 64 bytes of ASCII letters, digits, `_`, `-` and `.`.
        static func isValidQueueName(_ name: String) -> Bool {
            !name.isEmpty && name.utf8.count <= 64
                && name.utf8.allSatisfy { byte in
                    (byte >= 0x30 && byte <= 0x39) || (byte >= 0x41 && byte <= 0x5A) || (byte >= 0x61 && byte <= 0x7A)
                        || byte == 0x5F || byte == 0x2D || byte == 0x2E
                }
        }

        /// Throws ``DurableError/invalidOption(_:)`` unless `name` can name a queue (``isValidQueueName(_:)``).
        package static func validateQueueName(_ name: String) throws {
            guard isValidQueueName(name) else {
                throw DurableError.invalidOption(
                    "a queue name must be 1 to 64 bytes of letters, digits, '_', '-' and '.', not \"\(name)\"")
            }
        }

        /// Throws ``DurableError/invalidOption(_:)`` unless `metadata` can be stored: keys of 1 to 200 bytes, at
        /// most 64 KiB of keys and values in all, no U+0000 (which `jsonb` refuses).
        static func validateMetadata(_ metadata: [String: String]) throws {
            var size = 0
            for (key, value) in metadata {
                guard !key.isEmpty, key.utf8.count <= 200 else {
                    throw DurableError.invalidOption("a metadata key must have 1 to 200 bytes")
                }
                guard !key.utf8.contains(0), !value.utf8.contains(0) else {
                    throw DurableError.invalidOption("metadata must not contain U+0000")
                }
                size += key.utf8.count + value.utf8.count
            }
            guard size <= 65_536 else {
                throw DurableError.invalidOption("metadata must have at most 64 KiB, not \(size) bytes")
            }
        }

        /// `metadata` as a JSON object.
        static func metadataJSON(_ metadata: [String: String]) -> String {
            let encoder = JSONEncoder()
            encoder.outputFormatting = [.sortedKeys]
            return String(decoding: (try? encoder.encode(metadata)) ?? Data("{}".utf8), as: UTF8.self)
        }

        /// Options that start the job `delay` seconds from now.
        public static func delayed(by delay: TimeInterval) -> DurableJobOptions {
            // NaN and -∞ mean no delay (they meant about 95 years); +∞ and huge delays are kept to 3e9 s.
            DurableJobOptions(runAt: Date().addingTimeInterval(delay.isNaN ? 0 : min(max(0, delay), 3e9)))
        }

        /// The dependencies with ``inputFrom`` added, without duplicates, in order.
        var allDependencies: [JobID] {
            var seen = Set<JobID>()
            return (dependencies + (inputFrom.map { [$0] } ?? [])).filter { seen.insert($0).inserted }
        }

        /// Throws when an option cannot be stored.
        func validate() throws {
            try retry.validate()
            try Self.validateQueueName(queue)
            // PostgreSQL's timestamptz reaches year 294276; ±2,800 years around 1970 keeps well inside it.
            if let runAt, !(abs(runAt.timeIntervalSince1970) <= 9e10) {
                throw DurableError.invalidOption("runAt must be a date within 2,800 years of 1970")
            }
            if let uniqueKey, uniqueKey.isEmpty || uniqueKey.utf8.count > 1_000 {
                throw DurableError.invalidOption("uniqueKey must have 1 to 1,000 bytes")
            }
            if let uniqueKey, uniqueKey.hasPrefix("\u{1F}") {
                throw DurableError.invalidOption("uniqueKey must not start with U+001F")
            }
            if let unique {
                guard uniqueKey == nil else {
                    throw DurableError.invalidOption("a job takes uniqueKey or unique, not both")
                }
                try unique.validate()
            }
            try Self.validateMetadata(metadata)
            for category in exclusiveCategories where category.isEmpty || category.utf8.count > 200 {
                throw DurableError.invalidOption("an exclusive category must have 1 to 200 bytes")
            }
            if let timeout, !DurableKind.acceptedTimeouts.contains(timeout) {
                throw DurableError.invalidOption("timeout must be between 1 ms and 365 days, not \(timeout)")
            }
        }
    }
#endif
