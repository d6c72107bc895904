#if Postgres
    /// How long finished jobs are kept before a worker deletes them (``DurableWorker/retention``): per final state,
    /// or for ever.
    ///
    /// The worker elected for maintenance (one in the fleet at a time) deletes them in batches of 1,000, oldest
    /// first, at most every ``interval``, and never a job that an unfinished job still depends on or takes its
    /// input from: that one is deleted once its dependents have finished. Deleting a job frees its unique key and
    /// deletes its attempt history.
    public struct DurableRetention: Sendable, Hashable {
        /// How long a completed job is kept; `nil` for ever.
        public var completed: Duration?
        /// How long a cancelled job is kept; `nil` for ever.
        public var cancelled: Duration?
        /// How long a failed job is kept (the dead letters an operator may retry); `nil` for ever.
        public var failed: Duration?
        /// How often the elected worker looks for jobs to delete (10 ms to one day; default a minute).
        public var interval: Duration

        /// Creates a retention policy; by default that of ``standard``.
        public init(
            completed: Duration? = .seconds(86_400), cancelled: Duration? = .seconds(86_400),
            failed: Duration? = .seconds(7 * 86_400), interval: Duration = .seconds(60)
        ) {
            self.completed = completed
            self.cancelled = cancelled
            self.failed = failed
            self.interval = interval
        }

        /// Completed and cancelled jobs for a day, failed ones for a week (as River keeps them by default).
        public static let standard = DurableRetention()

        /// Every finished job is kept until deleted by hand (``DurableQueue/prune(state:finishedBefore:)``).
        public static let keepForever = DurableRetention(completed: nil, cancelled: nil, failed: nil)

        /// The ages, by state, of the states that are pruned.
        var ages: [(state: JobState, age: Duration)] {
            [(JobState.completed, completed), (.cancelled, cancelled), (.failed, failed)].compactMap { entry in
                entry.1.map { (entry.0, $0) }
            }
        }

        func validate() throws {
            guard interval >= .milliseconds(10), interval <= .seconds(86_400) else {
                throw DurableError.invalidOption("a retention interval must be between 10 ms and one day")
            }
            for (state, age) in ages where age < .zero {
                throw DurableError.invalidOption("the retention of \(state) jobs must not be negative")
            }
        }
    }
#endif
