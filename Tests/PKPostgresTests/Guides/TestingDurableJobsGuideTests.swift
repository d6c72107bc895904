#if Postgres
    import Foundation
    import PKCore
    import PKPostgres
    import PKTesting
    import Synchronization
    import Testing

    // The code of the article "Testing durable jobs" (PKTesting.docc/TestingDurableJobs.md), as written there, so
    // that it compiles (Scripts/docs.sh checks that every example of the catalogue is in a test); then run against
    // the test server, where one is.

    private struct Welcome: Codable, Sendable, Equatable {
        var to: String
    }

    /// The article's job: sends nothing, completes with a line saying to whom; fails for `down@example.com`.
    private final class SendWelcome: Procedure, DurableProcedure, @unchecked Sendable {
        // @unchecked Sendable: the input and the output are behind their Mutexes.
        static let kind = "guide.send-welcome"
        private let inputValue = Mutex<Pending<Welcome>>(.pending)
        private let outputValue = Mutex<Pending<ProcedureResult<String>>>(.pending)

        var input: Pending<Welcome> {
            get { inputValue.withLock { $0 } }
            set { inputValue.withLock { $0 = newValue } }
        }

        var output: Pending<ProcedureResult<String>> {
            get { outputValue.withLock { $0 } }
            set { outputValue.withLock { $0 = newValue } }
        }

        required override init() { super.init() }

        override func execute() {
            guard let welcome = input.value else { return finish(with: ProcedureKitError.requirementNotSatisfied()) }
            guard welcome.to != "down@example.com" else { return finish(with: TestError()) }
            finish(withResult: .success("sent to \(welcome.to)"))
        }
    }

    /// The code under test: signing up enqueues a welcome email.
    private func signUp(_ email: String, on queue: DurableQueue) async throws {
        _ = try await queue.enqueue(
            SendWelcome.self, input: Welcome(to: email),
            options: DurableJobOptions(uniqueKey: "welcome:\(email)", queue: "mail"))
    }

    /// The code under test, in the caller's transaction (where it would also insert the account).
    private func createAccount(_ email: String, on queue: DurableQueue, in transaction: PostgresConnection) throws {
        _ = try queue.enqueue(
            SendWelcome.self, input: Welcome(to: email), options: DurableJobOptions(queue: "mail"), in: transaction)
    }

    private func welcomeEmailIsEnqueued(queue: DurableQueue) async throws {
        let mark = try await DurableJobMark(queue)
        try await signUp("ann@example.com", on: queue)
        let job = try await PKExpectEnqueued(SendWelcome.self, on: queue, since: mark) {
            $0.input?.to == "ann@example.com"
        }
        #expect(job?.options.queue == "mail")
        #expect(job?.options.uniqueKey == "welcome:ann@example.com")
        try await PKExpectNotEnqueued(SendWelcome.self, on: queue, since: mark) { $0.input?.to == "bob@example.com" }
    }

    private func welcomeEmailIsEnqueuedWithTheAccount(queue: DurableQueue) async throws {
        let found = try await queue.withTransaction { transaction in
            let mark = try DurableJobMark(queue, in: transaction)
            try createAccount("ann@example.com", on: queue, in: transaction)
            return try EnqueuedDurableJobs(SendWelcome.self, on: queue, since: mark, in: transaction)
        }
        PKExpectEnqueued(found) { $0.input?.to == "ann@example.com" }
    }

    private func welcomeEmailIsSent(queue: DurableQueue) async throws {
        let worker = DurableTestWorker(queue: queue)
        let job = try await worker.work(SendWelcome.self, input: Welcome(to: "ann@example.com"))
        #expect(job.state == .completed)
        #expect(try worker.output(of: job, as: SendWelcome.self) == "sent to ann@example.com")
    }

    private func aFailedWelcomeIsRetriedOnce(queue: DurableQueue) async throws {
        let worker = DurableTestWorker(queue: queue)
        let retryOnce = DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 2, wait: .immediate))
        let first = try await worker.work(SendWelcome.self, input: Welcome(to: "down@example.com"), options: retryOnce)
        #expect(first.state == .available)  // attempt 1 failed; the policy allows another
        let second = try await worker.work(first.id, as: SendWelcome.self)
        #expect(second.state == .failed)
        #expect(second.attempt == 2)
    }

    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct TestingDurableJobsGuideTests {
        @Test func checkingWhatWasEnqueued() async throws {
            try await withFixture { fixture in try await welcomeEmailIsEnqueued(queue: fixture.queue) }
        }

        @Test func checkingWhatATransactionEnqueued() async throws {
            try await withFixture { fixture in try await welcomeEmailIsEnqueuedWithTheAccount(queue: fixture.queue) }
        }

        @Test func runningAJobInline() async throws {
            try await withFixture { fixture in try await welcomeEmailIsSent(queue: fixture.queue) }
        }

        @Test func runningTheNextAttempt() async throws {
            try await withFixture { fixture in try await aFailedWelcomeIsRetriedOnce(queue: fixture.queue) }
        }
    }
#endif
