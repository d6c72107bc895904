#if Postgres
    /// The identity of a durable job: the row's id in the jobs table, stable across processes and restarts.
    ///
    /// Execution is at-least-once, so a job's work may run more than once; use its id as the idempotency key of
    /// whatever the work changes outside the database.
    public struct JobID: RawRepresentable, Codable, Hashable, Sendable, Comparable, CustomStringConvertible {
        /// The row's id.
        public let rawValue: Int64

        /// Wraps a row id.
        public init(rawValue: Int64) { self.rawValue = rawValue }

        /// Orders by row id, which is the order of enqueueing.
        public static func < (lhs: JobID, rhs: JobID) -> Bool { lhs.rawValue < rhs.rawValue }

        /// `job #<id>`.
        public var description: String { "job #\(rawValue)" }
    }

    /// The identity of a graph of durable jobs enqueued together (`DurableQueue.enqueue(_:)` with a ``DurableGraph``).
    public struct GraphID: RawRepresentable, Codable, Hashable, Sendable, CustomStringConvertible {
        /// The graph's number.
        public let rawValue: Int64

        /// Wraps a graph number.
        public init(rawValue: Int64) { self.rawValue = rawValue }

        /// `graph #<id>`.
        public var description: String { "graph #\(rawValue)" }
    }
#endif
