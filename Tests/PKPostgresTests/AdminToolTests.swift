#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    /// The `pk-jobs` admin tool, run as an operator runs it (the built executable, as a child process) against the
    /// real server: JSON on standard output, exit status 0, 1 or 2, a clear message on standard error, never the
    /// connection string's password or a stack trace.
    @Suite(.enabled(if: AdminTool.ready, "needs PK_POSTGRES_URL and the pk-jobs product"), .serialized)
    struct AdminToolTests {

        @Test func migrateIsIdempotentAndStatsCountsByQueueAndState() async throws {
            try await withFixture { fixture in
                for _ in 0..<2 {
                    let migrated = try AdminTool.run(fixture, ["migrate"])
                    #expect(migrated.status == 0)
                    #expect(migrated.object?["version"] as? Int == DurableQueue.schemaVersion)
                }
                _ = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("mail"), options: DurableJobOptions(queue: "mail"))
                let cancelled = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("gone"))
                _ = try await fixture.queue.cancel(cancelled)
                #expect(try AdminTool.run(fixture, ["pause", "reports"]).status == 0)
                let stats = try AdminTool.run(fixture, ["stats", "--json"])
                #expect(stats.status == 0)
                let queues = stats.object?["queues"] as? [String: [String: Int]]
                #expect(queues?["mail"]?["available"] == 1)
                #expect(queues?["default"]?["cancelled"] == 1)
                #expect(queues?["reports"]?["available"] == 0)
                #expect(stats.object?["paused"] as? [String] == ["reports"])
                let oldest = stats.object?["oldestAvailableSeconds"] as? [String: Double]
                #expect(oldest?["mail"].map { $0 >= 0 } == true)
                #expect(stats.object?["runningByWorker"] as? [String: Int] == [:])
                #expect(
                    (stats.object?["finishedLastMinute"] as? [String: [String: Int]])?["default"]?["cancelled"] == 1)
                #expect(try AdminTool.run(fixture, ["resume", "reports"]).status == 0)
                #expect(try AdminTool.run(fixture, ["stats", "--json"]).object?["paused"] as? [String] == [])
            }
        }

        @Test func aFailedJobIsListedWithItsErrorsRetriedAndThenCompletes() async throws {
            try await withFixture { fixture in
                var input = fixture.input("dead")
                input.failingAttempts = 1
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never))
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(id).state == .failed)

                let listed = try AdminTool.run(fixture, ["list", "--state", "failed", "--json"])
                #expect(listed.status == 0)
                let jobs = try #require(listed.array)
                #expect(jobs.count == 1)
                let job = try #require(jobs.first)
                #expect(job["id"] as? Int64 == id.rawValue || job["id"] as? Int == Int(id.rawValue))
                #expect(job["kind"] as? String == TestJob.kind)
                #expect(job["queue"] as? String == "default")
                #expect(job["state"] as? String == "failed")
                #expect(job["attempt"] as? Int == 1)
                #expect(job["maxAttempts"] as? Int == 1)
                #expect(job["metadata"] as? [String: String] == [:])
                #expect(job["progress"] is NSNull)
                let errors = try #require(job["errors"] as? [[String: Any]])
                #expect(errors.count == 1)
                #expect(errors.first?["attempt"] as? Int == 1)
                #expect((errors.first?["error"] as? String)?.contains("planned failure of dead") == true)
                #expect(errors.first?["at"] is String)
                #expect(try AdminTool.run(fixture, ["list", "--state", "completed", "--json"]).array?.isEmpty == true)

                let retried = try AdminTool.run(fixture, ["retry", String(id.rawValue)])
                #expect(retried.status == 0)
                #expect(retried.object?["retried"] as? [Int] == [Int(id.rawValue)])
                #expect(try await fixture.waitUntilFinished(id).state == .completed)

                let shown = try AdminTool.run(fixture, ["show", String(id.rawValue), "--json"])
                #expect(shown.status == 0)
                let attempts = try #require(shown.object?["attempts"] as? [[String: Any]])
                #expect(attempts.map { $0["outcome"] as? String } == ["failed", "completed"])
                #expect((shown.object?["input"] as? [String: Any])?["label"] as? String == "dead")
                #expect((shown.object?["output"] as? [String: Any])?["label"] as? String == "dead")

                // Retrying it again is refused: it completed.
                let again = try AdminTool.run(fixture, ["retry", String(id.rawValue)])
                #expect(again.status == 1)
                #expect(again.standardError.contains("left alone"))
            }
        }

        @Test func retryByStateCancelDeleteAndPruneDoWhatTheySay() async throws {
            try await withFixture { fixture in
                var ids: [JobID] = []
                for label in ["a", "b", "c"] {
                    ids.append(try await fixture.queue.enqueue(TestJob.self, input: fixture.input(label)))
                }
                let cancelled = try AdminTool.run(
                    fixture, ["cancel", String(ids[0].rawValue), String(ids[1].rawValue)])
                #expect(cancelled.status == 0)
                #expect(
                    cancelled.object?["states"] as? [String: String]
                        == [String(ids[0].rawValue): "cancelled", String(ids[1].rawValue): "cancelled"])
                let retried = try AdminTool.run(fixture, ["retry", "--state", "cancelled", "--kind", TestJob.kind])
                #expect(retried.object?["retried"] as? Int == 2)
                #expect(try await fixture.queue.job(ids[0]).state == .available)
                #expect(try AdminTool.run(fixture, ["cancel", String(ids[0].rawValue)]).status == 0)
                let pruned = try AdminTool.run(fixture, ["prune", "--state", "cancelled", "--older-than", "0"])
                #expect(pruned.status == 0)
                #expect(pruned.object?["pruned"] as? Int == 1)
                let deleted = try AdminTool.run(fixture, ["delete", String(ids[2].rawValue), "999999999"])
                #expect(deleted.status == 1, "one of the two does not exist")
                #expect(deleted.object?["deleted"] as? [Int] == [Int(ids[2].rawValue)])
                #expect(deleted.standardError.contains("999999999 was not found"))
                let left = try await fixture.queue.jobs().map(\.id)
                #expect(left == [ids[1]])
            }
        }

        @Test(arguments: [
            [] as [String], ["stats"], ["--database"], ["--database", "x", "frobnicate"],
            ["--database", "x", "list", "--state", "sleeping"], ["--database", "x", "list", "--limit", "0"],
            ["--database", "x", "show"], ["--database", "x", "show", "abc"], ["--database", "x", "retry"],
            ["--database", "x", "retry", "--state", "completed"], ["--database", "x", "prune", "--state", "completed"],
            ["--database", "x", "prune", "--state", "running", "--older-than", "0"],
            ["--database", "x", "prune", "--state", "failed", "--older-than", "-5"],
            ["--database", "x", "pause"], ["--database", "x", "cancel", "0"], ["--database", "x", "stats", "--bogus"],
        ])
        func badUsageExitsWithTwoAndSaysWhy(arguments: [String]) throws {
            let result = try AdminTool.execute(arguments)
            #expect(result.status == 2)
            #expect(result.standardOutput.isEmpty)
            #expect(result.standardError.hasPrefix("pk-jobs: "))
            #expect(result.standardError.contains("usage: pk-jobs"))
        }

        @Test func aBadQueueNameIsBadUsage() async throws {
            try await withFixture { fixture in
                let result = try AdminTool.run(fixture, ["pause", "no spaces allowed"])
                #expect(result.status == 2)
                #expect(result.standardError.contains("queue name"))
            }
        }

        @Test func failuresNeverShowThePasswordOrAStackTrace() throws {
            let password = "s3cret-Pa55word"
            for database in [
                "postgresql://app:\(password)@127.0.0.1:1/app", "host=127.0.0.1 port=1 user=app password=\(password)",
            ] {
                let result = try AdminTool.execute(["--database", database, "stats", "--json"])
                #expect(result.status == 1)
                #expect(result.standardOutput.isEmpty)
                #expect(result.standardError.hasPrefix("pk-jobs: "))
                #expect(!result.standardError.contains(password))
                #expect(!result.standardError.contains("Backtrace") && !result.standardError.contains("Fatal error"))
            }
            let unmigrated = try AdminTool.execute([
                "--database", TestDatabase.url, "--schema", "never_migrated_here", "list", "--json",
            ])
            #expect(unmigrated.status == 1)
            #expect(unmigrated.standardError.contains("migrate"))
        }
    }

    /// Runs the built `pk-jobs`.
    enum AdminTool {
        static let executable = ProductsDirectory.executable(named: "pk-jobs")
        static var ready: Bool { TestDatabase.isAvailable && executable != nil }

        struct Result {
            let status: Int32
            let standardOutput: String
            let standardError: String

            var json: Any? {
                try? JSONSerialization.jsonObject(with: Data(standardOutput.utf8), options: [.fragmentsAllowed])
            }
            var object: [String: Any]? { json as? [String: Any] }
            var array: [[String: Any]]? { json as? [[String: Any]] }
        }

        /// Runs `pk-jobs --database <test server> --schema <the fixture's> arguments…`.
        static func run(_ fixture: TestFixture, _ arguments: [String]) throws -> Result {
            try execute(["--database", fixture.url, "--schema", fixture.schema] + arguments)
        }

        /// Runs `pk-jobs arguments…` to its end (within a minute), in `environment` (by default this process's).
        static func execute(_ arguments: [String], environment: [String: String]? = nil) throws -> Result {
            let process = Process()
            process.executableURL = URL(fileURLWithPath: try #require(executable))
            process.arguments = arguments
            if let environment { process.environment = environment }
            let output = Pipe()
            let error = Pipe()
            process.standardOutput = output
            process.standardError = error
            try process.run()
            // Read both to their ends on threads of their own, so that neither pipe fills while the tool runs.
            let collected = PKMutex<(out: Data, err: Data)>((Data(), Data()))
            let readers = DispatchGroup()
            DispatchQueue(label: "pk-jobs.stdout").async(group: readers) {
                let data = output.fileHandleForReading.readDataToEndOfFile()
                collected.withLock { $0.out = data }
            }
            DispatchQueue(label: "pk-jobs.stderr").async(group: readers) {
                let data = error.fileHandleForReading.readDataToEndOfFile()
                collected.withLock { $0.err = data }
            }
            guard readers.wait(timeout: .now() + 60) == .success else {
                process.terminate()
                throw PostgresError(kind: .unexpectedResult, message: "pk-jobs \(arguments) did not end in a minute")
            }
            process.waitUntilExit()
            let (out, err) = collected.withLock { $0 }
            return Result(
                status: process.terminationStatus, standardOutput: String(decoding: out, as: UTF8.self),
                standardError: String(decoding: err, as: UTF8.self))
        }
    }
#endif
