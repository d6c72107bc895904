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
    }
#endif
