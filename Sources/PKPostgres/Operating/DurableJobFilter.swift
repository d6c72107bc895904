#if Postgres
    import Foundation

    /// Which jobs a listing returns (``DurableQueue/jobs(_:)``) or a bulk action touches
    /// (``DurableQueue/retry(matching:)``): every condition given must hold; an empty list means any.
    ///
    /// Listings page by id: pass the last id of a page as ``afterID`` to read the next one.
    public struct DurableJobFilter: Sendable, Hashable {
        /// The states to include; empty for any.
        public var states: Set<JobState>
        /// The kinds to include; empty for any.
        public var kinds: [String]
        /// The named queues to include; empty for any.
        public var queues: [String]
        /// Only jobs created at or after this date.
        public var createdAfter: Date?
        /// Only jobs created before this date.
        public var createdBefore: Date?
        /// Only jobs whose id is greater (the next page after one ending with this id).
        public var afterID: JobID?
        /// The most jobs a listing returns, 1 to 10,000 (default 100); bulk actions ignore it.
        public var limit: Int

        /// Creates a filter; with no arguments it matches every job (and a listing returns the first 100).
        public init(
            states: Set<JobState> = [], kinds: [String] = [], queues: [String] = [], createdAfter: Date? = nil,
            createdBefore: Date? = nil, afterID: JobID? = nil, limit: Int = 100
        ) {
            self.states = states
            self.kinds = kinds
            self.queues = queues
            self.createdAfter = createdAfter
            self.createdBefore = createdBefore
            self.afterID = afterID
            self.limit = limit
        }

        /// Throws for a limit out of range or a date PostgreSQL cannot hold.
        func validate() throws {
            guard (1...10_000).contains(limit) else {
                throw DurableError.invalidOption("a listing's limit must be between 1 and 10,000, not \(limit)")
            }
            for date in [createdAfter, createdBefore].compactMap({ $0 })
            where !(abs(date.timeIntervalSince1970) <= 9e10) {
                throw DurableError.invalidOption("a filter's dates must be within 2,800 years of 1970")
            }
        }

        /// The table's own states that stand for ``states`` (``JobState/available`` is three of them).
        var databaseStates: [String] {
            states.flatMap { state -> [String] in
                state == .available ? ["available", "scheduled", "waiting"] : [state.rawValue]
            }.sorted()
        }
    }
#endif
