#if Postgres
    import Foundation
    import PKCore

    /// A procedure that can run as a durable job: its input and output are `Codable`, and it has a stable
    /// ``kind`` name under which jobs of it are stored.
    ///
    /// A worker creates one with `init()`, sets its `input` from the stored job, adds it to a local
    /// `ProcedureQueue` (observers, conditions, timeouts and logging work as usual), and stores its output or
    /// errors when it finishes.
    ///
    /// **Execution is at-least-once.** A worker that crashes or loses its lease mid-job leaves the job to be run
    /// again, so `execute()` may run more than once for one job; completion happens exactly once. Make the work
    /// idempotent, keyed by the job's id (``willStartDurably(_:)`` tells it), or commit its database changes in
    /// the completing transaction (``willCompleteDurably(_:output:in:)``), which is fenced: it commits only while
    /// this worker still holds the job.
    ///
    /// ```swift
    /// final class Resize: Procedure, DurableProcedure, @unchecked Sendable {
    ///     // @unchecked Sendable: `values` is a Mutex.
    ///     static let kind = "images.resize"
    ///     private let values = Mutex<(Pending<Request>, Pending<ProcedureResult<Image>>)>((.pending, .pending))
    ///     var input: Pending<Request> {
    ///         get { values.withLock { $0.0 } }
    ///         set { values.withLock { $0.0 = newValue } }
    ///     }
    ///     var output: Pending<ProcedureResult<Image>> {
    ///         get { values.withLock { $0.1 } }
    ///         set { values.withLock { $0.1 = newValue } }
    ///     }
    ///     required override init() { super.init() }
    ///     override func execute() { … finish(withResult: .success(image)) }
    /// }
    /// ```
    public protocol DurableProcedure: InputProcedure, OutputProcedure
    where Input: Codable & Sendable, Output: Codable & Sendable {
        /// The stable name jobs of this type are stored under. Keep it when you rename the type; workers claim only
        /// the kinds they registered, so old and new code can run side by side during a deploy.
        static var kind: String { get }

        /// How long one attempt of a job of this kind may run unless its ``DurableJobOptions/timeout`` says
        /// otherwise (1 ms to 365 days). The default is 30 minutes. At the timeout the worker cancels the
        /// procedure with ``DurableError/timedOut(_:after:)`` and records the attempt failed; a procedure that
        /// ignores the cancellation keeps its worker's slot, but the job is given up one lease later so that it can
        /// run elsewhere (``DurableWorker/Statistics/stuck`` counts such slots).
        static var durableTimeout: Duration { get }

        /// Creates a procedure for a job; the worker sets its `input` before adding it to a queue.
        init()

        /// Called on the worker before the procedure is added to its queue, with the job it runs. The default
        /// does nothing; keep `job.id` when the work needs an idempotency key.
        func willStartDurably(_ job: DurableJobInfo)

        /// Called on the worker's database thread inside the transaction that marks the job completed, after the
        /// fencing check passed: changes made here through `transaction` commit together with the completion, or
        /// not at all. Throwing rolls both back and fails the attempt. The default does nothing.
        func willCompleteDurably(_ job: DurableJobInfo, output: Output, in transaction: PostgresConnection) throws
    }

    extension DurableProcedure {
        /// 30 minutes.
        public static var durableTimeout: Duration { .seconds(1_800) }

        /// Does nothing.
        public func willStartDurably(_ job: DurableJobInfo) {}

        /// Does nothing.
        public func willCompleteDurably(_ job: DurableJobInfo, output: Output, in transaction: PostgresConnection)
            throws
        {}
    }

    /// What a worker tells a ``DurableProcedure`` about the job it runs.
    public struct DurableJobInfo: Sendable, Hashable {
        /// The job: the natural idempotency key.
        public let id: JobID
        /// The kind.
        public let kind: String
        /// This attempt, 1 for the first.
        public let attempt: Int
        /// The most attempts allowed.
        public let maxAttempts: Int
        /// The graph the job belongs to, if any.
        public let graph: GraphID?
        /// The worker running it.
        public let workerName: String
        /// For a job a periodic schedule enqueued (``DurablePeriodicJob``), the time of the period it runs for: the
        /// same on every attempt, so a natural key for what the job does once per period.
        public var periodStart: Date? = nil
        /// Where ``recordMetadata(_:)`` keeps what it is given until the worker writes it; `nil` outside a worker.
        var journal: DurableJobJournal? = nil

        /// Adds `entries` to the job's metadata (``DurableJobSnapshot/metadata``; a key recorded again takes the new
        /// value), for operators to see while it runs: the worker writes it within about a second, and at the
        /// latest with the attempt's outcome. Call it from the procedure, from any thread.
        ///
        /// The procedure's progress (PKCore's `reportProgress`) is shown the same way, with nothing to call.
        ///
        /// - Throws: ``DurableError/invalidOption(_:)`` for a key of more than 200 bytes, an empty key, U+0000, or
        ///   more than 64 KiB recorded by one attempt. Outside a worker (a procedure run by hand), does nothing.
        public func recordMetadata(_ entries: [String: String]) throws {
            try journal?.record(entries)
        }

        /// Whether two infos describe the same attempt (the journal is not compared).
        public static func == (lhs: DurableJobInfo, rhs: DurableJobInfo) -> Bool {
            lhs.id == rhs.id && lhs.kind == rhs.kind && lhs.attempt == rhs.attempt && lhs.maxAttempts == rhs.maxAttempts
                && lhs.graph == rhs.graph && lhs.workerName == rhs.workerName && lhs.periodStart == rhs.periodStart
        }

        /// Hashes the attempt: its job, number and worker.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(id)
            hasher.combine(attempt)
            hasher.combine(workerName)
        }
    }
#endif
