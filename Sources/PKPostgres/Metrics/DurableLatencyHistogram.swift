#if Postgres
    /// Durations observed, in seconds, as a summary (count, sum, maximum) and in fixed buckets, the shape of a
    /// Prometheus histogram.
    public struct DurableLatencyHistogram: Sendable, Hashable {
        /// The buckets' upper bounds, in seconds (from 0.5 ms to 10 s), ascending; one more bucket, unbounded
        /// (`+Inf`), holds every observation.
        public static let standardUpperBounds: [Double] = [
            0.000_5, 0.001, 0.002_5, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10,
        ]

        /// The buckets' upper bounds, in seconds, ascending (``standardUpperBounds``).
        public let upperBounds: [Double]
        /// How many durations were observed.
        public private(set) var count = 0
        /// Their total, in seconds.
        public private(set) var sum: Double = 0
        /// The longest, in seconds (0 before the first).
        public private(set) var max: Double = 0
        /// How many fell in each bucket alone (one more than `upperBounds`: the last is above the highest bound).
        private var bucketCounts: [Int]

        /// An empty histogram with the standard buckets.
        init() {
            upperBounds = Self.standardUpperBounds
            bucketCounts = Array(repeating: 0, count: upperBounds.count + 1)
        }

        /// For each upper bound, how many durations were at most that long (Prometheus's cumulative `le` buckets);
        /// the `+Inf` bucket is ``count``.
        public var cumulativeCounts: [Int] {
            var total = 0
            return upperBounds.indices.map { index in
                total += bucketCounts[index]
                return total
            }
        }

        /// Adds one duration, in seconds (a negative one counts as 0).
        mutating func record(_ seconds: Double) {
            let value = Swift.max(0, seconds.isFinite ? seconds : 0)
            count += 1
            sum += value
            max = Swift.max(max, value)
            bucketCounts[upperBounds.firstIndex { value <= $0 } ?? upperBounds.count] += 1
        }
    }
#endif
