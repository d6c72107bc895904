#if Postgres
    import Foundation
    import PKCore
    import PKPostgres
    import Testing

    /// What a job tells operators about itself: metadata given at enqueue and recorded while it runs
    /// (``DurableJobInfo/recordMetadata(_:)``), and its procedure's progress (`reportProgress`), shown by the
    /// queries while it runs.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"))
    struct JobMetadataTests {

        @Test func metadataGivenAtEnqueueIsListedWithTheJob() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(metadata: ["customer": "7", "source": "signup"])
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("m"), options: options)
                let batch = try await fixture.queue.enqueue(
                    TestJob.self, inputs: [fixture.input("b1"), fixture.input("b2")],
                    options: DurableJobOptions(metadata: ["batch": "yes"]))
                #expect(try await fixture.queue.job(id).metadata == ["customer": "7", "source": "signup"])
                for job in batch { #expect(try await fixture.queue.job(job).metadata == ["batch": "yes"]) }
                let plain = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("plain"))
                #expect(try await fixture.queue.job(plain).metadata.isEmpty)
            }
        }

        @Test func aRunningJobsMetadataAndProgressAreShownWhileItRuns() async throws {
            try await withFixture { fixture in
                try fixture.queue.register(ReportingJob.self)
                let input = ReportingInput(
                    probe: fixture.probe.name, progress: 0.25, message: "resizing 1 of 4", metadata: ["step": "resize"],
                    waits: true)
                let id = try await fixture.queue.enqueue(
                    ReportingJob.self, input: input, options: DurableJobOptions(metadata: ["customer": "7"]))
                try fixture.startWorker()
                try await eventually("the progress and metadata to be shown") {
                    let job = try await fixture.queue.job(id)
                    return job.state == .running && job.progress == 0.25
                        && job.metadata == ["customer": "7", "step": "resize"]
                }
                #expect(try await fixture.queue.job(id).progressMessage == "resizing 1 of 4")
                #expect(
                    try await fixture.queue.jobs(DurableJobFilter(states: [.running])).first?.progress == 0.25)
                fixture.probe.releaseWaitingJobs()
                let finished = try await fixture.waitUntilFinished(id)
                #expect(finished.state == .completed)
                #expect(finished.progress == 1)
                #expect(finished.metadata == ["customer": "7", "step": "resize", "done": "yes"])
            }
        }

        @Test func metadataRecordedJustBeforeTheEndIsWrittenWithTheOutcome() async throws {
            try await withFixture { fixture in
                try fixture.queue.register(ReportingJob.self)
                // Long leases: the progress flush runs once a second at the most, the job ends at once.
                for failing in [false, true] {
                    let input = ReportingInput(
                        probe: fixture.probe.name, metadata: ["seen": "\(failing)"], fails: failing)
                    let id = try await fixture.queue.enqueue(
                        ReportingJob.self, input: input, options: DurableJobOptions(retry: .never))
                    try fixture.startWorker(lease: .seconds(30))
                    let job = try await fixture.waitUntilFinished(id)
                    #expect(job.state == (failing ? .failed : .completed))
                    #expect(job.metadata == ["seen": "\(failing)", "done": "yes"])
                }
            }
        }

        @Test func aRetriedJobsProgressStartsAfreshWithItsNextAttempt() async throws {
            try await withFixture { fixture in
                try fixture.queue.register(ReportingJob.self)
                let input = ReportingInput(
                    probe: fixture.probe.name, progress: 0.5, message: "half", waits: true, failsFirstAttempt: true)
                let id = try await fixture.queue.enqueue(
                    ReportingJob.self, input: input,
                    options: DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 2, wait: .immediate)))
                try fixture.startWorker()
                // The first attempt reports, then fails at once; the second waits without reporting.
                try await eventually("the second attempt to run") {
                    let job = try await fixture.queue.job(id)
                    return job.state == .running && job.attempt == 2
                }
                let running = try await fixture.queue.job(id)
                #expect(running.progress == nil)
                #expect(running.metadata["attempt 1"] == "failed")
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(id).state == .completed)
            }
        }

        @Test func badMetadataIsRefusedWithATypedError() async throws {
            try await withFixture { fixture in
                for metadata in [["": "x"], [String(repeating: "k", count: 201): "x"], ["k": "\u{0}"]] {
                    await #expect(throws: DurableError.self) {
                        try await fixture.queue.enqueue(
                            TestJob.self, input: fixture.input("bad"), options: DurableJobOptions(metadata: metadata))
                    }
                }
                let huge = ["k": String(repeating: "v", count: 70_000)]
                await #expect(throws: DurableError.self) {
                    try await fixture.queue.enqueue(
                        TestJob.self, input: fixture.input("bad"), options: DurableJobOptions(metadata: huge))
                }
            }
        }
    }

    /// What a ``ReportingJob`` reports.
    struct ReportingInput: Codable, Sendable {
        var probe: String
        /// Reported (`reportProgress`) at the start of every attempt but the retried one's.
        var progress: Double?
        var message: String?
        /// Recorded at the start of the first attempt.
        var metadata: [String: String] = [:]
        /// Waits for the probe's release before finishing (attempts after a failed first one, or every one).
        var waits = false
        /// Fails every attempt.
        var fails = false
        /// Reports and fails on its first attempt, recording `attempt 1: failed`.
        var failsFirstAttempt = false
    }

    /// Reports progress and records metadata as its input says, then records `done: yes` as it finishes.
    final class ReportingJob: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: `state` is a PKMutex.
        static let kind = "test.reporting"
        private let state = PKMutex<
            (input: Pending<ReportingInput>, output: Pending<ProcedureResult<Int>>, job: DurableJobInfo?)
        >(
            (.pending, .pending, nil))

        var input: Pending<ReportingInput> {
            get { state.withLock { $0.input } }
            set { state.withLock { $0.input = newValue } }
        }

        var output: Pending<ProcedureResult<Int>> {
            get { state.withLock { $0.output } }
            set { state.withLock { $0.output = newValue } }
        }

        required override init() { super.init() }

        func willStartDurably(_ job: DurableJobInfo) { state.withLock { $0.job = job } }

        override func execute() {
            guard let input = input.value, let job = state.withLock({ $0.job }), let probe = Probe.named(input.probe)
            else {
                finish(with: DurableError.invalidOption("a reporting job without input, job or probe"))
                return
            }
            do {
                if input.failsFirstAttempt, job.attempt == 1 {
                    if let progress = input.progress {
                        reportProgress(fractionCompleted: progress, message: input.message)
                    }
                    try job.recordMetadata(["attempt 1": "failed"])
                    finish(with: PlannedFailure(label: "reporting", attempt: 1))
                    return
                }
                if !input.failsFirstAttempt, let progress = input.progress {
                    reportProgress(fractionCompleted: progress, message: input.message)
                }
                if !input.metadata.isEmpty { try job.recordMetadata(input.metadata) }
                let deadline = Date().addingTimeInterval(60)
                while input.waits, !probe.isReleased, !isCancelled, Date() < deadline {
                    Thread.sleep(forTimeInterval: 0.01)
                }
                try job.recordMetadata(["done": "yes"])
                if input.fails {
                    finish(with: PlannedFailure(label: "reporting", attempt: job.attempt))
                } else {
                    finish(withResult: .success(job.attempt))
                }
            } catch {
                finish(with: error)
            }
        }
    }
#endif
