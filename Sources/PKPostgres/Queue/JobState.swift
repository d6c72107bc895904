#if Postgres
    /// Where a durable job is in its life.
    ///
    /// ```
    /// blocked ─(dependencies done)─▶ available ─(claimed)─▶ running ─▶ completed
    ///                                    ▲                    │  ├──▶ failed      (attempts spent: dead letter)
    ///                                    └──(retry, lease     │  └──▶ cancelled
    ///                                        expired, drain)──┘
    /// ```
    /// `completed`, `failed` and `cancelled` are final.
    public enum JobState: String, Codable, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// Waiting for dependencies to finish.
        case blocked
        /// Ready to be claimed once its `run_at` has come.
        case available
        /// Claimed by a worker that holds its lease.
        case running
        /// Finished successfully; its output is stored.
        case completed
        /// Failed on its last allowed attempt (the dead-letter state); its error history is kept.
        case failed
        /// Cancelled, by a request or because a dependency failed.
        case cancelled

        /// Whether the state is final.
        public var isFinished: Bool {
            switch self {
            case .completed, .failed, .cancelled: true
            case .blocked, .available, .running: false
            }
        }

        /// The raw value.
        public var description: String { rawValue }

        /// The state a row's `state` column stands for. The table keeps two states of its own that are both
        /// ``available`` to users: `scheduled` (due later; made available when its time comes) and `waiting` (due,
        /// but an exclusive category it needs is held; made available when it is released).
        init?(databaseValue: String) {
            switch databaseValue {
            case "scheduled", "waiting": self = .available
            default: self.init(rawValue: databaseValue)
            }
        }
    }
#endif
