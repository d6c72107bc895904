#if Postgres
    import Foundation

    /// When a job counts as a duplicate of one already enqueued: enqueueing a duplicate stores nothing and returns
    /// the existing job's id (as River's and Oban's unique jobs do).
    ///
    /// A uniqueness always compares the job's kind, and adds what it is given: the input (`byInput`), the named
    /// queue (`byQueue`), a period of time the job's start falls in (`period`), an explicit `key`. An existing job
    /// counts only while it is in one of `states`: always while it is unfinished (blocked, available or running),
    /// and by default also once it completed, but not once it failed or was cancelled, so that a failed job can be
    /// enqueued afresh.
    ///
    /// ```swift
    /// // At most one report per customer and hour, however often it is asked for.
    /// let options = DurableJobOptions(unique: DurableUniqueness(byInput: true, period: .seconds(3_600)))
    /// ```
    ///
    /// ``DurableJobOptions/uniqueKey`` is the other mode: one key, across kinds, among jobs in every state.
    ///
    /// Retrying a finished job (``DurableQueue/retry(_:)``) skips it while another job holds its key.
    public struct DurableUniqueness: Sendable, Hashable {
        /// An explicit key compared too (1 to 1,000 bytes), or `nil`.
        public var key: String?
        /// Whether jobs with different inputs are different (their inputs are compared as `jsonb`: the order of an
        /// object's keys and the spaces do not matter).
        public var byInput: Bool
        /// Whether jobs in different named queues are different.
        public var byQueue: Bool
        /// When given, jobs whose start times (``DurableJobOptions/runAt``, or the time of the enqueue) fall in
        /// different periods of this length, counted from 1970 in the database's clock, are different. One second
        /// to 365 days.
        public var period: Duration?
        /// The states in which an existing job makes a new one a duplicate. Must contain the unfinished states
        /// (``JobState/blocked``, ``JobState/available``, ``JobState/running``); by default ``defaultStates``.
        public var states: Set<JobState>

        /// Creates a uniqueness by kind, and whatever else is given.
        public init(
            key: String? = nil, byInput: Bool = false, byQueue: Bool = false, period: Duration? = nil,
            states: Set<JobState> = DurableUniqueness.defaultStates
        ) {
            self.key = key
            self.byInput = byInput
            self.byQueue = byQueue
            self.period = period
            self.states = states
        }

        /// The unfinished states, and completed: a job that failed or was cancelled may be enqueued again.
        public static let defaultStates: Set<JobState> = [.blocked, .available, .running, .completed]

        /// Throws ``DurableError/invalidOption(_:)`` unless the uniqueness can be stored.
        func validate() throws {
            if let key, key.isEmpty || key.utf8.count > 1_000 {
                throw DurableError.invalidOption("a uniqueness key must have 1 to 1,000 bytes")
            }
            if let period, !(Duration.seconds(1) ... .seconds(365 * 86_400)).contains(period) {
                throw DurableError.invalidOption("a uniqueness period must be between 1 s and 365 days, not \(period)")
            }
            let unfinished: Set<JobState> = [.blocked, .available, .running]
            guard unfinished.isSubset(of: states) else {
                throw DurableError.invalidOption(
                    "a uniqueness always counts unfinished jobs: its states must contain blocked, available and running"
                )
            }
        }

        /// The finished states kept, as the bits of the `unique_states` column (completed 1, failed 2, cancelled 4).
        var stateBits: Int {
            (states.contains(.completed) ? 1 : 0) | (states.contains(.failed) ? 2 : 0)
                | (states.contains(.cancelled) ? 4 : 0)
        }

        /// The part of the key made here (the database appends the period and the input's digest): starts with
        /// U+001F, which no ``DurableJobOptions/uniqueKey`` may hold, so the two modes never meet.
        func keyPrefix(kind: String, queue: String) -> String {
            var prefix = "\u{1F}kind=\(kind)"
            if byQueue { prefix += "\u{1F}queue=\(queue)" }
            if let key { prefix += "\u{1F}key=\(key)" }
            return prefix
        }
    }
#endif
