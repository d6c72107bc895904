#if Postgres
    import Foundation
    import PKCore
    import PKPostgres
    import Synchronization
    import Testing

    // The code of the article "Operating a fleet" (PKPostgres.docc/OperatingAFleet.md), as written there, so that it
    // compiles (Scripts/docs.sh checks that every example of the catalogue is in a test); then run against the test
    // server, where one is.

    private struct Mail: Codable, Sendable {
        var to: String
    }

    /// The article's mail job: sends nothing, completes with the address.
    private final class SendMail: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the input and the output are behind their Mutexes.
        static let kind = "guide.send-mail"
        private let inputValue = Mutex<Pending<Mail>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<String>>>(.pending)

        var input: Pending<Mail> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<String>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() {
            guard let mail = input.value else { return finish(with: ProcedureKitError.requirementNotSatisfied()) }
            finish(withResult: .success(mail.to))
        }
    }

    private struct ExportRequest: Codable, Sendable {
        var scope: String
    }

    /// The article's export job: exports nothing, completes with the scope.
    private final class Export: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the input and the output are behind their Mutexes.
        static let kind = "guide.export"
        private let inputValue = Mutex<Pending<ExportRequest>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<String>>>(.pending)

        var input: Pending<ExportRequest> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<String>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() { finish(withResult: .success(input.value?.scope ?? "")) }
    }

    /// The article's copy job: records which file it copies and reports its progress.
    private final class CopyFiles: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the input, the output and the job are behind their Mutexes.
        static let kind = "guide.copy-files"
        private let inputValue = Mutex<Pending<ExportRequest>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<Int>>>(.pending)
        private let job = Mutex<DurableJobInfo?>(nil)

        var input: Pending<ExportRequest> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<Int>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        func willStartDurably(_ job: DurableJobInfo) { self.job.withLock { $0 = job } }

        // "Metadata and progress"
        override func execute() {
            guard let request = input.value, let job = job.withLock({ $0 }) else {
                return finish(with: ProcedureKitError.requirementNotSatisfied())
            }
            let files = ["a.csv", "b.csv", "c.csv"]
            for (index, file) in files.enumerated() {
                try? job.recordMetadata(["file": file, "scope": request.scope])
                reportProgress(completed: Int64(index), of: Int64(files.count), message: "copying \(file)")
            }
            finish(withResult: .success(files.count))
        }
    }

    // "Unique jobs"
    private func uniqueJobs(_ queue: DurableQueue) async throws -> (JobID, JobID) {
        // At most one export per scope and hour, however often it is asked for.
        let hourly = DurableJobOptions(unique: DurableUniqueness(byInput: true, period: .seconds(3_600)))
        let first = try await queue.enqueue(Export.self, input: ExportRequest(scope: "invoices"), options: hourly)
        let again = try await queue.enqueue(Export.self, input: ExportRequest(scope: "invoices"), options: hourly)
        return (first, again)
    }

    // "Limits"
    private func limits(_ queue: DurableQueue) async throws -> DurableWorker {
        let worker = try DurableWorker(
            queue: queue, concurrency: 8, queues: ["default", "exports"], queueConcurrency: ["exports": 2])
        try await queue.setConcurrencyLimit(4, queue: "exports")  // at most 4 exports at once, fleet-wide
        return worker
    }

    // "Periodic jobs"
    private func periodic(_ queue: DurableQueue) throws -> DurableWorker {
        let nightly = try DurablePeriodicJob(
            name: "nightly-export", schedule: .cron("0 2 * * *", timeZone: TimeZone(identifier: "Europe/Paris")!),
            Export.self, input: ExportRequest(scope: "all"), runOnStart: false, missedPeriods: .runLatest)
        let scheduler = try DurableWorker(queue: queue, periodicJobs: [nightly])
        return scheduler
    }

    // "Named queues"
    private func namedQueues(_ queue: DurableQueue, mail: Mail) async throws -> (JobID, [DurableWorker]) {
        let id = try await queue.enqueue(SendMail.self, input: mail, options: DurableJobOptions(queue: "mail"))

        // A worker for mail only, and one for everything else.
        let mailer = try DurableWorker(queue: queue, concurrency: 16, queues: ["mail"])
        let general = try DurableWorker(queue: queue, concurrency: 4, queues: ["default", "reports"])
        return (id, [mailer, general])
    }

    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct OperatingAFleetGuideTests {
        @Test func theMailQueuesJobRunsOnTheMailWorker() async throws {
            try await withFixture { fixture in
                try fixture.queue.register(SendMail.self)
                let (id, workers) = try await namedQueues(fixture.queue, mail: Mail(to: "ops@example.com"))
                for worker in workers { try worker.start() }
                let sent = try await fixture.queue.result(of: id, as: SendMail.self)
                for worker in workers { try await fixture.stop(worker) }
                #expect(sent == "ops@example.com")
                #expect(try await fixture.queue.attempts(of: id).map(\.worker) == [workers[0].name])
                let limited = try await limits(fixture.queue)
                #expect(limited.queueConcurrency == ["exports": 2])
                #expect(try periodic(fixture.queue).periodicJobs.map(\.name) == ["nightly-export"])
            }
        }

        @Test func aDuplicateExportIsTheFirstAndTheCopyJobShowsItsFileAndProgress() async throws {
            try await withFixture { fixture in
                try fixture.queue.register(Export.self)
                try fixture.queue.register(CopyFiles.self)
                let (first, again) = try await uniqueJobs(fixture.queue)
                #expect(again == first)
                let copy = try await fixture.queue.enqueue(CopyFiles.self, input: ExportRequest(scope: "invoices"))
                try fixture.startWorker()
                #expect(try await fixture.queue.result(of: copy, as: CopyFiles.self) == 3)
                let job = try await fixture.queue.job(copy)
                #expect(job.metadata == ["file": "c.csv", "scope": "invoices"])
                #expect(job.progress == 1)
            }
        }
    }
#endif
