#if Postgres
    import Foundation
    import PKCore
    import PKObservers
    import PKPostgres
    import Synchronization
    import Testing

    // The code of the article "Running procedures across machines"
    // (PKPostgres.docc/RunningProceduresAcrossMachines.md) and of PKPostgres' root page (PKPostgres.docc/PKPostgres.md),
    // as written there, so that it compiles: keep them in step (Scripts/docs.sh checks that every example of the
    // catalogue is in a test, but for the Package.swift excerpt). The examples need the orders table, a mailer and a
    // signal, so they are compiled, not run. The names they assume are defined first.

    /// The e-mail provider's client the article's `SendReceipt` calls.
    private struct Mailer: Sendable {
        func send(
            to address: String, template: String, idempotencyKey: String,
            completion: @escaping @Sendable (Result<String, any Error>) -> Void
        ) {
            completion(.success("message-\(idempotencyKey)"))
        }
    }

    private let mailer = Mailer()

    /// Stands for the article's durable procedures that it does not show.
    private class StubJob<Input: Codable & Sendable, Output: Codable & Sendable>: Procedure, DurableProcedure,
        @unchecked Sendable
    {
        // @unchecked Sendable: the input and the output are behind their Mutexes.
        class var kind: String { "guide.\(Self.self)" }

        private let inputValue = Mutex<Pending<Input>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<Output>>>(.pending)

        var input: Pending<Input> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<Output>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() { finish(with: ProcedureKitError.requirementNotSatisfied()) }
    }

    private struct ReportRequest: Codable, Sendable {
        var month: String
    }

    private struct PublishRequest: Codable, Sendable {
        var channel: String
    }

    private final class Remind: StubJob<String, String>, @unchecked Sendable {}
    private final class DownloadReport: StubJob<ReportRequest, String>, @unchecked Sendable {}
    private final class ParseReport: StubJob<String, [Int]>, @unchecked Sendable {}
    private final class ComputeTotals: StubJob<[Int], Int>, @unchecked Sendable {}
    private final class DrawChart: StubJob<[Int], String>, @unchecked Sendable {}
    private final class Publish: StubJob<PublishRequest, String>, @unchecked Sendable {}

    // "Defining a durable procedure"

    private struct ReceiptRequest: Codable, Sendable {
        var orderID: Int64
        var email: String
    }

    private struct ReceiptSent: Codable, Sendable {
        var messageID: String
    }

    private final class SendReceipt: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the mutable state is behind the three Mutexes below.
        static let kind = "shop.send-receipt"  // stored in every job: keep it when you rename the class

        private let inputValue = Mutex<Pending<ReceiptRequest>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<ReceiptSent>>>(.pending)
        private let job = Mutex<DurableJobInfo?>(nil)

        var input: Pending<ReceiptRequest> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<ReceiptSent>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        func willStartDurably(_ job: DurableJobInfo) {
            self.job.withLock { $0 = job }
            name = "receipt \(job.id)"
            addObserver(TimeoutObserver(by: .seconds(30)))  // a timeout is a failed attempt, retried by the policy
        }

        override func execute() {
            guard let request = input.value, let job = job.withLock({ $0 }) else {
                finish(with: ProcedureKitError.requirementNotSatisfied())
                return
            }
            // `mailer` stands for your e-mail provider's client, whose callback passes a Result<String, any Error>.
            // The job's id is the idempotency key, so a second run of this job does not send a second e-mail.
            let key = "receipt-\(job.id.rawValue)"
            mailer.send(to: request.email, template: "receipt", idempotencyKey: key) { result in
                self.finish(withResult: result.map { ReceiptSent(messageID: $0) })
            }
        }

        func willCompleteDurably(_ job: DurableJobInfo, output: ReceiptSent, in transaction: PostgresConnection) throws
        {
            // Commits together with the job's completion, or not at all.
            guard let request = input.value else { return }
            try transaction.execute(
                "UPDATE orders SET receipt_message_id = $2 WHERE id = $1::bigint",
                [String(request.orderID), output.messageID])
        }
    }

    // PKPostgres.md

    private func theRootPagesExample() async throws {
        // Any process: enqueue, then wait for the result.
        let queue = try DurableQueue(connectionString: "postgresql://app@db/app")
        let id = try await queue.enqueue(SendReceipt.self, input: ReceiptRequest(orderID: 42, email: "ada@example.com"))
        let sent = try await queue.result(of: id, as: SendReceipt.self)
        print(sent)

        // Each worker process: register the kinds it runs, then start.
        try queue.register(SendReceipt.self)
        let worker = try DurableWorker(queue: queue, concurrency: 8)
        try worker.start()
    }

    // "Starting a worker"

    @available(*, noasync)
    private func startAWorker() throws {
        let queue = try DurableQueue(connectionString: ProcessInfo.processInfo.environment["DATABASE_URL"] ?? "")
        try queue.register(SendReceipt.self)

        let coordinator = ShutdownCoordinator.shared
        coordinator.gracePeriod = .seconds(20)
        coordinator.handleSignals([SIGTERM, SIGINT])

        let worker = try DurableWorker(queue: queue, concurrency: 8, shutdownCoordinator: coordinator)
        try worker.start()
        _ = coordinator.syncWaitForShutdown()  // returns once SIGTERM or SIGINT arrived and the shutdown is over
        _ = worker.syncWaitUntilStopped(timeout: .seconds(10))
    }

    // "Enqueueing jobs"

    private func enqueueAndWait(_ queue: DurableQueue) async throws -> ReceiptSent {
        let id = try await queue.enqueue(SendReceipt.self, input: ReceiptRequest(orderID: 42, email: "ada@example.com"))
        // Waits; throws if the job fails or is cancelled.
        let sent = try await queue.result(of: id, as: SendReceipt.self)
        return sent
    }

    @available(*, noasync)
    private func enqueueInTheCallersTransaction(_ queue: DurableQueue, email: String, total: Int) throws -> Int64 {
        // Synchronous, from a thread; in async code, `try await queue.withTransaction { … }` does the same.
        let orderID = try queue.withTransaction { connection -> Int64 in
            let order = try connection.execute(
                "INSERT INTO orders (email, total_cents) VALUES ($1, $2::integer) RETURNING id", [email, String(total)])
            let orderID = try order.rows[0].int64("id")
            _ = try queue.enqueue(
                SendReceipt.self, input: ReceiptRequest(orderID: orderID, email: email), in: connection)
            return orderID
        }
        return orderID
    }

    private func scheduleJobs(_ queue: DurableQueue, orderID: Int64, request: ReceiptRequest, note: String)
        async throws -> [JobID]
    {
        var options = DurableJobOptions(priority: 10, uniqueKey: "receipt:\(orderID)")
        options.retry = DurableRetryPolicy(maxAttempts: 5)
        let id = try await queue.enqueue(SendReceipt.self, input: request, options: options)

        let reminder = try await queue.enqueue(Remind.self, input: note, options: .delayed(by: 3_600))  // in an hour
        return [id, reminder]
    }

    // "Graphs of jobs"

    private func enqueueAGraph(_ queue: DurableQueue) async throws {
        let retrying = DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 3))
        let graph = DurableGraph()
        let download = graph.add(DownloadReport.self, input: ReportRequest(month: "2026-11"), options: retrying)
        let parse = graph.add(ParseReport.self, inputFrom: download)  // ParseReport.Input == DownloadReport.Output
        let totals = graph.add(ComputeTotals.self, inputFrom: parse)
        let chart = graph.add(DrawChart.self, inputFrom: parse)
        graph.add(Publish.self, input: PublishRequest(channel: "finance"), after: [totals, chart])

        let enqueued = try await queue.enqueue(graph)
        let summary = try await queue.waitUntilFinished(graph: enqueued.id)
        if summary.isCompleted {
            let figures = try await queue.result(of: enqueued[totals], as: ComputeTotals.self)
            print(figures)
        }
    }

    // "Mutual exclusion across machines"

    private func exclusiveOptions(accountID: Int) -> DurableJobOptions {
        let options = DurableJobOptions(exclusiveCategories: ["ledger:\(accountID)"])
        return options
    }

    // "Timeouts"

    extension SendReceipt {
        // An attempt may take two minutes, unless the job was enqueued with a timeout of its own.
        static var durableTimeout: Duration { .seconds(120) }
    }

    private func enqueueWithATimeout(_ queue: DurableQueue, request: ReceiptRequest) async throws -> JobID {
        let id = try await queue.enqueue(
            SendReceipt.self, input: request, options: DurableJobOptions(timeout: .seconds(30)))
        return id
    }

    // "Migrations and least privilege"

    private func migrateSeparately(ownerURL: String, appURL: String) async throws -> DurableQueue {
        // Deploy step, as a role that owns the schema:
        try await DurableQueue(connectionString: ownerURL).migrate()

        // Application processes, as a role with USAGE on the schema and SELECT, INSERT, UPDATE and DELETE on its tables
        // (and USAGE on its sequences); `.manual` makes a schema that is behind an error instead of a migration attempt:
        let queue = try DurableQueue(connectionString: appURL, migration: .manual)
        return queue
    }

    // "Pruning"

    private func pruneEveryHour(_ queue: DurableQueue) {
        Task {
            while !Task.isCancelled {
                _ = try? await queue.prune(finishedBefore: .seconds(7 * 86_400))  // keep a week
                try? await Task.sleep(for: .seconds(3_600))
            }
        }
    }

    /// The examples above compile; a durable procedure's kind is what the article says.
    struct RunningProceduresAcrossMachinesGuideTests {

        @Test func theReceiptsKindIsStable() {
            #expect(SendReceipt.kind == "shop.send-receipt")
            #expect(ParseReport.kind == "guide.ParseReport")
        }

        @Test func aKindsOwnTimeoutReplacesTheDefault() {
            #expect(SendReceipt.durableTimeout == .seconds(120))
            #expect(ParseReport.durableTimeout == .seconds(1_800))
        }
    }
#endif
