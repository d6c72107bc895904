#if Postgres
    import PKCore

    /// What a running durable job may ask of its worker instead of succeeding or failing: finish the procedure with
    /// one of these as its error (`finish(with: DurableJobControl.snooze(.seconds(30)))`, or throw it from an
    /// `AsyncProcedure`'s body).
    ///
    /// ```swift
    /// override func execute() {
    ///     guard rateLimiter.allows(input.value!) else {
    ///         return finish(with: DurableJobControl.snooze(.seconds(30)))   // not an attempt; runs again later
    ///     }
    ///     …
    /// }
    /// ```
    public enum DurableJobControl: Error, Sendable, Hashable, CustomStringConvertible {
        /// Run again after `delay` (0 to 365 days) without spending an attempt: the job becomes due again then,
        /// and its attempt leaves no record. A job snoozes at most ``maximumSnoozes`` times; the next snooze fails
        /// it for good. A cancellation requested meanwhile wins: the job is cancelled.
        case snooze(Duration)
        /// Fail now, for good, whatever attempts the retry policy still allows (the input can never succeed, say):
        /// recorded as a failed attempt with `reason`, and its dependents are cancelled.
        case discard(reason: String)
        /// Record the job cancelled, with `reason`: as a cancellation by request, its dependents are cancelled too
        /// (unless they ignore failed dependencies).
        case cancel(reason: String)

        /// How many times one job may snooze.
        public static let maximumSnoozes = 1_000

        /// What happened, in words.
        public var description: String {
            switch self {
            case .snooze(let delay): "snoozed for \(delay)"
            case .discard(let reason): "discarded: \(reason)"
            case .cancel(let reason): "cancelled by the job: \(reason)"
            }
        }

        /// The snooze's delay in seconds, kept within 0 to 365 days.
        var snoozeSeconds: Double? {
            guard case .snooze(let delay) = self else { return nil }
            return min(max(0, delay.timeInterval), 365 * 86_400)
        }
    }
#endif
