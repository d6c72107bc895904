#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Enqueueing many jobs in one statement: ids in the inputs' order, the options applied to each, in the
    /// caller's transaction too, and options a batch cannot take refused.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct BatchEnqueueTests {

        @Test func aBatchGivesIdsInTheInputsOrderAndEveryJobRuns() async throws {
            try await withFixture { fixture in
                let inputs = (0..<500).map { fixture.input("job\($0)", value: $0) }
                let ids = try await fixture.queue.enqueue(
                    TestJob.self, inputs: inputs, options: DurableJobOptions(priority: 3, queue: "bulk"))
                #expect(ids.count == 500)
                #expect(ids == ids.sorted())
                #expect(Set(ids).count == 500)
                let listed = try await fixture.queue.jobs(DurableJobFilter(limit: 1_000))
                #expect(listed.map(\.id) == ids)
                for (index, job) in listed.enumerated() {
                    let input = try JSONDecoder().decode(TestInput.self, from: Data((job.inputJSON ?? "").utf8))
                    #expect(input.label == "job\(index)")
                    #expect(job.queue == "bulk")
                    #expect(job.priority == 3)
                    #expect(job.state == .available)
                }
                try fixture.startWorker(concurrency: 8, queues: ["bulk"])
                // 500 jobs through one worker beside the other suites: a hang guard of minutes, not the usual 20 s
                // (a CI run once took longer than that for half of them).
                try await eventually("every job to complete", timeout: .seconds(180)) {
                    try await fixture.queue.queueStatistics().count(queue: "bulk", state: .completed) == 500
                }
                for id in [ids[0], ids[249], ids[499]] {
                    #expect(try await fixture.waitUntilFinished(id).state == .completed)
                }
                #expect(Set(fixture.probe.startedLabels) == Set(inputs.map(\.label)))
            }
        }

        @Test func aBatchInTheCallersTransactionIsGoneWhenItRollsBack() async throws {
            try await withFixture { fixture in
                struct Rollback: Error {}
                let queue = fixture.queue
                let inputs = (0..<10).map { fixture.input("t\($0)") }
                await #expect(throws: Rollback.self) {
                    try await queue.withTransaction { transaction in
                        _ = try queue.enqueue(TestJob.self, inputs: inputs, in: transaction)
                        throw Rollback()
                    }
                }
                #expect(try await queue.jobs().isEmpty)
                let kept = try await queue.withTransaction { transaction in
                    try queue.enqueue(
                        TestJob.self, inputs: inputs,
                        options: DurableJobOptions(runAt: Date().addingTimeInterval(3_600)),
                        in: transaction)
                }
                #expect(kept.count == 10)
                let scheduled = try await fixture.count(
                    "SELECT count(*) FROM \(fixture.schema).jobs WHERE state = 'scheduled'")
                #expect(scheduled == 10)
                #expect(try await queue.enqueue(TestJob.self, inputs: [], options: DurableJobOptions()).isEmpty)
            }
        }

        @Test func optionsABatchCannotTakeAreRefused() async throws {
            try await withFixture { fixture in
                let source = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("source"))
                for options in [
                    DurableJobOptions(uniqueKey: "one"), DurableJobOptions(dependencies: [source]),
                    DurableJobOptions(inputFrom: source), DurableJobOptions(queue: "bad name"),
                ] {
                    await #expect(throws: DurableError.self) {
                        try await fixture.queue.enqueue(TestJob.self, inputs: [fixture.input("x")], options: options)
                    }
                }
                #expect(try await fixture.queue.jobs().map(\.id) == [source])
            }
        }
    }
#endif
