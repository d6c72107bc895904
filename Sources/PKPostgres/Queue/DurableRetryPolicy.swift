#if Postgres
    import Foundation
    import PKCore

    /// How many times a durable job may be attempted and how long to wait between attempts, stored with the job.
    ///
    /// The waits come from PKCore's ``/PKCore/WaitStrategy`` (the vocabulary of `RetryProcedure`): the wait before
    /// attempt *n + 1* is the strategy's *n*-th value, plus a random jitter up to ``jitter``, capped at
    /// ``maximumWait``. A failed attempt releases the job's lease and sets its `run_at`; when ``maxAttempts`` are
    /// spent the job lands in ``JobState/failed`` with its error history.
    public struct DurableRetryPolicy: Codable, Sendable, Hashable {
        /// The most attempts, the first included (at least 1).
        public var maxAttempts: Int
        /// The waits between attempts.
        public var wait: WaitStrategy
        /// A random extra wait between 0 and this many seconds, added to each wait.
        public var jitter: TimeInterval
        /// The longest wait, jitter included.
        public var maximumWait: TimeInterval

        /// One attempt, no retry: a failure, or a crash of the worker running it, fails the job for good.
        public static let never = DurableRetryPolicy(maxAttempts: 1)

        /// The default of ``DurableJobOptions``: up to 5 attempts, waiting 1, 2, 4 and 8 s (plus up to 1 s of
        /// jitter) between them. So a job whose worker crashed runs again once its lease expires.
        public static let standard = DurableRetryPolicy(
            maxAttempts: 5, wait: .exponential(power: 2, period: 1, maximum: 300), jitter: 1)

        /// Creates a policy. Waits are clamped to `0...maximumWait`; a non-finite or negative jitter is 0.
        public init(
            maxAttempts: Int, wait: WaitStrategy = .exponential(power: 2, period: 1, maximum: 300),
            jitter: TimeInterval = 0, maximumWait: TimeInterval = 3_600
        ) {
            self.maxAttempts = maxAttempts
            self.wait = wait
            self.jitter = jitter
            self.maximumWait = maximumWait
        }

        /// The wait after the failure of attempt `attempt` (1 for the first).
        func delay(afterAttempt attempt: Int) -> TimeInterval {
            // At most about 95 years: PostgreSQL's `make_interval` and timestamps refuse much more, and the job's
            // outcome would then not be recorded.
            let cap = maximumWait.isNaN || maximumWait == .infinity ? 86_400 * 365 : min(max(0, maximumWait), 3e9)
            var strategy = wait
            if case .random(let minimum, let maximum) = wait {
                // `Double.random(in:)` traps on a range wider than the largest Double: bound it to 0...cap first.
                func bounded(_ value: Double) -> Double { value.isNaN ? 0 : min(max(0, value), cap) }
                strategy = .random(minimum: bounded(minimum), maximum: bounded(maximum))
            }
            var iterator = strategy.makeIterator()
            var value: TimeInterval = 0
            for _ in 0..<max(1, min(attempt, 10_000)) { value = iterator.next() ?? value }
            if jitter.isFinite, jitter > 0 { value += Double.random(in: 0...jitter) }
            guard value.isFinite else { return cap }
            return min(max(0, value), cap)
        }

        /// Throws when the policy cannot be stored.
        func validate() throws {
            guard maxAttempts >= 1, maxAttempts <= 1_000_000 else {
                throw DurableError.invalidOption("maxAttempts must be between 1 and 1,000,000, not \(maxAttempts)")
            }
        }

        // MARK: Codable (WaitStrategy is not Codable itself: its cases are stored by name)

        private enum CodingKeys: String, CodingKey { case maxAttempts, wait, jitter, maximumWait }
        private enum StrategyKeys: String, CodingKey { case kind, a, b, c }

        /// Decodes a stored policy.
        public init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            maxAttempts = try container.decode(Int.self, forKey: .maxAttempts)
            jitter = try container.decode(Double.self, forKey: .jitter)
            maximumWait = try container.decode(Double.self, forKey: .maximumWait)
            let strategy = try container.nestedContainer(keyedBy: StrategyKeys.self, forKey: .wait)
            let a = try strategy.decodeIfPresent(Double.self, forKey: .a) ?? 0
            let b = try strategy.decodeIfPresent(Double.self, forKey: .b) ?? 0
            let c = try strategy.decodeIfPresent(Double.self, forKey: .c) ?? 0
            switch try strategy.decode(String.self, forKey: .kind) {
            case "immediate": wait = .immediate
            case "constant": wait = .constant(a)
            case "incrementing": wait = .incrementing(initial: a, increment: b)
            case "fibonacci": wait = .fibonacci(period: a, maximum: b)
            case "exponential": wait = .exponential(power: a, period: b, maximum: c)
            case "random": wait = .random(minimum: a, maximum: b)
            case let other:
                throw DecodingError.dataCorruptedError(
                    forKey: .kind, in: strategy, debugDescription: "unknown wait strategy \(other)")
            }
        }

        /// Encodes the policy for storage.
        public func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(maxAttempts, forKey: .maxAttempts)
            try container.encode(jitter.isFinite ? jitter : 0, forKey: .jitter)
            try container.encode(maximumWait.isFinite ? maximumWait : 86_400 * 365, forKey: .maximumWait)
            var strategy = container.nestedContainer(keyedBy: StrategyKeys.self, forKey: .wait)
            func finite(_ value: Double) -> Double { value.isFinite ? value : 86_400 * 365 }
            switch wait {
            case .immediate:
                try strategy.encode("immediate", forKey: .kind)
            case .constant(let a):
                try strategy.encode("constant", forKey: .kind)
                try strategy.encode(finite(a), forKey: .a)
            case .incrementing(let a, let b):
                try strategy.encode("incrementing", forKey: .kind)
                try strategy.encode(finite(a), forKey: .a)
                try strategy.encode(finite(b), forKey: .b)
            case .fibonacci(let a, let b):
                try strategy.encode("fibonacci", forKey: .kind)
                try strategy.encode(finite(a), forKey: .a)
                try strategy.encode(finite(b), forKey: .b)
            case .exponential(let a, let b, let c):
                try strategy.encode("exponential", forKey: .kind)
                try strategy.encode(finite(a), forKey: .a)
                try strategy.encode(finite(b), forKey: .b)
                try strategy.encode(finite(c), forKey: .c)
            case .random(let a, let b):
                try strategy.encode("random", forKey: .kind)
                try strategy.encode(finite(a), forKey: .a)
                try strategy.encode(finite(b), forKey: .b)
            }
        }
    }
#endif
