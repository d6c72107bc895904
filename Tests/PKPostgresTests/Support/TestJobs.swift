#if Postgres
    import Foundation
    import PKCore
    import PKPostgres

    /// What a ``TestJob`` is asked to do.
    struct TestInput: Codable, Sendable, Hashable {
        /// The name of the test's ``Probe``.
        var probe: String
        /// A name for the job in the probe's events.
        var label: String
        /// Echoed in the output.
        var value: Int = 0
        /// How long `execute()` sleeps before finishing.
        var sleepMilliseconds: Int = 0
        /// The first attempts that fail (with ``PlannedFailure``): 2 fails attempts 1 and 2.
        var failingAttempts: Int = 0
        /// Runs until cancelled (polling `isCancelled`), or until the probe releases waiting jobs.
        var runsUntilCancelled: Bool = false
        /// A table (`schema.table`) the completion hook inserts the job's id into, in the completing transaction.
        var effectsTable: String?
        /// The first attempts that run, ignoring cancellation, until the probe releases waiting jobs (a procedure
        /// that ignores its timeout); later attempts go on as the other fields say.
        var ignoresCancellationOnAttempts: Int = 0
        /// Bytes of padding appended to the output's label.
        var outputPadding: Int = 0
        /// Puts U+0000 in the output's label, which PostgreSQL's `jsonb` refuses.
        var outputHasNUL: Bool = false
        /// The first calls of the completion hook that fail with a real serialization failure (SQLSTATE 40001,
        /// raised by the server, which aborts the completing transaction).
        var hookTransientFailures: Int = 0
        /// The completion hook runs a statement that fails and swallows the error (leaving the completing
        /// transaction aborted on the server).
        var hookSwallowsError: Bool = false
        /// The job's first runs (of any attempt) that snooze for `snoozeMilliseconds` instead of running.
        var snoozingRuns: Int = 0
        var snoozeMilliseconds: Int = 0
        /// `"discard"` or `"cancel"`: the job asks for that (``DurableJobControl``) instead of running.
        var control: String?
    }

    /// What a ``TestJob`` or a ``Relay`` reports.
    struct TestOutput: Codable, Sendable, Hashable {
        var probe: String
        var label: String
        var value: Int
        var attempt: Int
    }

    /// The failure a ``TestJob`` is asked to have.
    struct PlannedFailure: Error, CustomStringConvertible {
        let label: String
        let attempt: Int
        var description: String { "planned failure of \(label) on attempt \(attempt)" }
    }

    /// The tests' durable procedure: records what it does in its test's ``Probe``, sleeps, fails or waits for
    /// cancellation as its input says, and echoes its value.
    final class TestJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`, `job`) is behind its
        // PKMutexes (Synchronization.Mutex; a lock ThreadSanitizer sees in PK_TSAN builds).
        static let kind = "test.job"
        private let inputValue = PKMutex<Pending<TestInput>>(.pending)
        private let outputValue = PKMutex<Pending<ProcedureResult<TestOutput>>>(.pending)
        private let job = PKMutex<DurableJobInfo?>(nil)

        var input: Pending<TestInput> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<TestOutput>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        func willStartDurably(_ job: DurableJobInfo) {
            self.job.withLock { $0 = job }
            if let input = input.value, let probe = Probe.named(input.probe) {
                probe.leaks.track(self, name: "the procedure of \(input.label), \(job.id)")
            }
        }

        override func execute() {
            guard let input = input.value, let job = job.withLock({ $0 }), let probe = Probe.named(input.probe) else {
                finish(with: DurableError.invalidOption("a test job without input, job or probe"))
                return
            }
            probe.record(.started, input.label, job)
            probe.tracker.enter()
            let result = work(input, job, probe)
            // Leave before finishing: the next job may start as soon as this one's outcome is recorded.
            probe.record(.ended, input.label, job)
            probe.tracker.leave()
            finish(withResult: result)
        }

        private func work(_ input: TestInput, _ job: DurableJobInfo, _ probe: Probe) -> ProcedureResult<TestOutput> {
            if input.sleepMilliseconds > 0 { Thread.sleep(forTimeInterval: Double(input.sleepMilliseconds) / 1_000) }
            // Bounded, so that a test that fails to cancel or release it does not leave it running forever.
            let deadline = Date().addingTimeInterval(60)
            if job.attempt <= input.ignoresCancellationOnAttempts {
                while !probe.isReleased, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                if isCancelled { probe.record(.sawCancellation, input.label, job) }
            } else if input.runsUntilCancelled {
                while !isCancelled, !probe.isReleased, Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
                if isCancelled { probe.record(.sawCancellation, input.label, job) }
            }
            if probe.events(.started).filter({ $0.label == input.label }).count <= input.snoozingRuns {
                return .failure(DurableJobControl.snooze(.milliseconds(input.snoozeMilliseconds)))
            }
            switch input.control {
            case "discard": return .failure(DurableJobControl.discard(reason: "the input can never succeed"))
            case "cancel": return .failure(DurableJobControl.cancel(reason: "nothing left to do"))
            default: break
            }
            if job.attempt <= input.failingAttempts {
                return .failure(PlannedFailure(label: input.label, attempt: job.attempt))
            }
            var label = input.label + String(repeating: "x", count: input.outputPadding)
            if input.outputHasNUL { label += "\u{0}" }
            return .success(TestOutput(probe: input.probe, label: label, value: input.value, attempt: job.attempt))
        }

        func willCompleteDurably(_ job: DurableJobInfo, output: TestOutput, in transaction: PostgresConnection) throws {
            guard let input = input.value else { return }
            let probe = Probe.named(input.probe)
            let calls = probe?.events(.completing).filter { $0.job == job.id }.count ?? 0
            probe?.record(.completing, input.label, job)
            if calls < input.hookTransientFailures {
                try transaction.execute(
                    "DO $$ BEGIN RAISE EXCEPTION 'planned conflict' USING ERRCODE = '40001'; END $$")
            }

            if let table = input.effectsTable {
                try transaction.execute(
                    "INSERT INTO \(table) (job_id, label, worker) VALUES ($1::bigint, $2, $3)",
                    [String(job.id.rawValue), input.label, job.workerName])
            }
            // Last, so that nothing after it in the hook notices the aborted transaction.
            if input.hookSwallowsError {
                _ = try? transaction.execute("SELECT * FROM no_such_table_anywhere")
            }
        }
    }

    /// A job whose input is another job's output (`inputFrom`): doubles the value.
    final class Relay: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`, `job`) is behind its
        // PKMutexes (Synchronization.Mutex; a lock ThreadSanitizer sees in PK_TSAN builds).
        static let kind = "test.relay"
        private let inputValue = PKMutex<Pending<TestOutput>>(.pending)
        private let outputValue = PKMutex<Pending<ProcedureResult<TestOutput>>>(.pending)
        private let job = PKMutex<DurableJobInfo?>(nil)

        var input: Pending<TestOutput> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<TestOutput>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        func willStartDurably(_ job: DurableJobInfo) {
            self.job.withLock { $0 = job }
        }

        override func execute() {
            guard let input = input.value, let job = job.withLock({ $0 }) else {
                finish(with: DurableError.invalidOption("a relay without input or job"))
                return
            }
            let label = input.label + ">relay"
            Probe.named(input.probe)?.record(.started, label, job)
            finish(
                withResult: .success(
                    TestOutput(probe: input.probe, label: label, value: input.value * 2, attempt: job.attempt)))
        }

        func willCompleteDurably(_ job: DurableJobInfo, output: TestOutput, in transaction: PostgresConnection) throws {
            Probe.named(output.probe)?.record(.completing, output.label, job)
        }
    }

    /// An input of another shape than ``TestInput``.
    struct UnrelatedInput: Codable, Sendable {
        var number: Int
    }

    /// Enqueues jobs of ``TestJob``'s kind with an input ``TestJob`` cannot decode (never registered: a worker
    /// runs them as ``TestJob``).
    final class MismatchedJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state (`inputValue`, `outputValue`) is behind its
        // PKMutexes (Synchronization.Mutex; a lock ThreadSanitizer sees in PK_TSAN builds).
        static let kind = TestJob.kind
        private let inputValue = PKMutex<Pending<UnrelatedInput>>(.pending)
        private let outputValue = PKMutex<Pending<ProcedureResult<TestOutput>>>(.pending)

        var input: Pending<UnrelatedInput> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<TestOutput>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() {
            finish(with: DurableError.invalidOption("never run"))
        }
    }
#endif
