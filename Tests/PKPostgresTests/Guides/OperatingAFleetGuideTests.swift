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
            }
        }
    }
#endif
