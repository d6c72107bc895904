#if Postgres
    import Foundation
    import PKCore
    import PKPostgres
    import Synchronization

    /// What a demo job is asked to do.
    ///
    /// It names no table: where a completion writes is the worker process's decision (``DemoSettings``), never
    /// the input's, which anyone who can enqueue controls. Rows enqueued by an older version may still carry an
    /// `effectsTable` key; decoding ignores it.
    struct DemoInput: Codable, Sendable {
        /// The job's number in its graph.
        var index: Int
        /// How long the work takes, in milliseconds.
        var workMilliseconds: Int
        /// The chance that the first attempt fails, drawn when it runs (when ``failingAttempts`` is nil).
        var failRate: Double
        /// When set, the plan made at enqueue: attempts 1 to this many fail, later ones succeed (at least the job's
        /// most attempts: the job fails for good).
        var failingAttempts: Int?
        /// Fails every attempt until the fleet is healed (`heal`). Absent in rows of older versions.
        var poisoned: Bool?
        /// Text from `enqueue --label`, shown on the job's page of the dashboard; never interpreted.
        var label: String?
    }

    /// What a demo job reports.
    struct DemoOutput: Codable, Sendable {
        var index: Int
        var attempt: Int
    }

    /// What the worker process decides for every demo job it runs: set once by `work`, from its validated
    /// options, before its worker starts.
    struct DemoSettings: Sendable {
        /// The table a completion inserts its row into: `<schema>_demo.effects`, `<schema>` being the queue's
        /// schema name (validated by `DurableQueue`: lower-case letters, digits and underscores).
        var effectsTable: String
        /// Whether a job writes `start <job id> <attempt> <worker>` to standard output when its `execute()`
        /// begins (`work --log-starts`), so that a test can tell which attempts really started, even on a worker
        /// later killed.
        var logStarts = false

        /// The table a tick inserts its row into: `<schema>_demo.ticks`.
        var ticksTable = ""
        /// The connection string, for the poisoned jobs' look at whether the fleet was healed.
        var database = ""
        /// The table `heal` writes: `<schema>_demo.settings`.
        var settingsTable = ""

        /// This process's settings; nil until `work` sets them.
        static let current = Mutex<DemoSettings?>(nil)

        /// Whether `heal` has run: read from the database, on a connection of its own, by a poisoned job's
        /// `execute()` (the demo's one database read outside a completion; rare, so not pooled).
        static func isHealed() -> Bool {
            guard let settings = current.withLock({ $0 }), let connection = try? PostgresConnection(settings.database)
            else { return false }
            defer { connection.close() }
            let row = try? connection.execute("SELECT healed FROM \(settings.settingsTable) WHERE id = 1").rows.first
            return (try? row?.bool("healed")) ?? false
        }
    }

    /// A demo job: sleeps a little, fails as its input asks, and, when it completes, inserts one row into the demo
    /// `effects` table in its completing transaction, so that the report can count completions that happened
    /// more than once (none should).
    final class DemoJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`, `job`) is behind its Mutexes.
        static let kind = "durable-fleet.demo"
        private let inputValue = Mutex<Pending<DemoInput>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<DemoOutput>>>(.pending)
        private let job = Mutex<DurableJobInfo?>(nil)

        var input: Pending<DemoInput> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<DemoOutput>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        func willStartDurably(_ job: DurableJobInfo) {
            self.job.withLock { $0 = job }
            name = "demo \(job.id)"
        }

        override func execute() {
            guard let input = input.value, let job = job.withLock({ $0 }) else {
                finish(with: DurableError.invalidOption("the demo job has no input"))
                return
            }
            if DemoSettings.current.withLock({ $0?.logStarts ?? false }) {
                say("start \(job.id.rawValue) \(job.attempt) \(job.workerName)")
            }
            if input.workMilliseconds > 0 { Thread.sleep(forTimeInterval: Double(input.workMilliseconds) / 1_000) }
            if input.poisoned == true, !DemoSettings.isHealed() {
                finish(with: DemoFailure(index: input.index, attempt: job.attempt, planned: true))
                return
            }
            if let failing = input.failingAttempts {
                if job.attempt <= failing {
                    finish(with: DemoFailure(index: input.index, attempt: job.attempt, planned: true))
                    return
                }
            } else if job.attempt == 1, input.failRate > 0, Double.random(in: 0..<1) < input.failRate {
                finish(with: DemoFailure(index: input.index, attempt: job.attempt, planned: false))
                return
            }
            finish(withResult: .success(DemoOutput(index: input.index, attempt: job.attempt)))
        }

        func willCompleteDurably(_ job: DurableJobInfo, output: DemoOutput, in transaction: PostgresConnection) throws {
            guard let table = DemoSettings.current.withLock({ $0?.effectsTable }) else {
                throw DurableError.invalidOption("this process has no demo effects table (run `work`)")
            }
            try transaction.execute(
                "INSERT INTO \(table) (job_id, worker) VALUES ($1::bigint, $2)",
                [String(job.id.rawValue), job.workerName])
        }
    }

    /// The periodic tick: when it completes, it inserts one row keyed by its period into the demo `ticks` table, in
    /// its completing transaction, so that the report can count periods ticked more than once (none should).
    final class TickJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`) is behind its Mutexes.
        static let kind = "durable-fleet.tick"
        private let inputValue = Mutex<Pending<Int>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<Int>>>(.pending)

        var input: Pending<Int> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<Int>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() {
            finish(withResult: .success(input.value ?? 0))
        }

        func willCompleteDurably(_ job: DurableJobInfo, output: Int, in transaction: PostgresConnection) throws {
            guard let table = DemoSettings.current.withLock({ $0?.ticksTable }), !table.isEmpty,
                let period = job.periodStart
            else { throw DurableError.invalidOption("a tick without its period or this process's ticks table") }
            try transaction.execute(
                "INSERT INTO \(table) (period_at, job_id, worker) VALUES (to_timestamp($1::float8), $2::bigint, $3)",
                [String(period.timeIntervalSince1970), String(job.id.rawValue), job.workerName])
        }
    }

    /// The failure a demo job's attempt may have: its first at random, or any its plan names.
    struct DemoFailure: Error, CustomStringConvertible {
        let index: Int
        let attempt: Int
        let planned: Bool
        var description: String {
            planned
                ? "demo job \(index) failed attempt \(attempt) as planned"
                : "demo job \(index) failed its first attempt on purpose"
        }
    }
#endif
