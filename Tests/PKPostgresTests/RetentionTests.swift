#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Retention: the worker elected for maintenance deletes finished jobs older than their state's retention, and
    /// never one that an unfinished job still depends on.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct RetentionTests {

        @Test func finishedJobsPastTheirStatesRetentionAreDeletedAndTheRestKept() async throws {
            try await withFixture { fixture in
                let done = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done"))
                var input = fixture.input("dead")
                input.failingAttempts = 1
                let dead = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(retry: .never))
                let cancelled = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("cancelled"))
                #expect(try await fixture.queue.cancel(cancelled) == .cancelled)
                // A finished source whose dependent has not run yet (its queue has no worker): kept.
                let source = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("source"))
                let waiting = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("waiting"),
                    options: DurableJobOptions(dependencies: [source], queue: "later"))
                let retention = DurableRetention(
                    completed: .zero, cancelled: .zero, failed: .seconds(3_600), interval: .milliseconds(50))
                let worker = try fixture.startWorker(retention: retention)
                // Not waited for by id: with a retention of zero, `done` may be deleted before a look finds it.
                _ = try await fixture.waitUntilFinished(dead)
                _ = try await fixture.waitUntilFinished(source)
                try await eventually("the completed and cancelled jobs to be deleted") {
                    let left = try await fixture.queue.jobs().map(\.id)
                    return !left.contains(done) && !left.contains(cancelled)
                }
                let left = try await fixture.queue.jobs().map(\.id)
                #expect(left == [dead, source, waiting])
                #expect(worker.statistics.pruned >= 2)
                // Once the dependent has run, its source goes too (and the dependent itself, completed).
                try fixture.startWorker(queues: ["later"], retention: retention)
                try await eventually("the source and its dependent to be deleted") {
                    try await fixture.queue.jobs().map(\.id) == [dead]
                }
            }
        }

        @Test func keepForeverDeletesNothingAndBadRetentionsAreRefused() async throws {
            try await withFixture { fixture in
                let done = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done"))
                let worker = try fixture.startWorker(
                    retention: DurableRetention(
                        completed: nil, cancelled: nil, failed: nil, interval: .milliseconds(10)))
                _ = try await fixture.waitUntilFinished(done)
                try await Task.sleep(for: .milliseconds(300))
                #expect(try await fixture.queue.jobs().map(\.id) == [done])
                #expect(worker.statistics.pruned == 0)
                #expect(DurableRetention.keepForever.completed == nil)
                #expect(throws: DurableError.self) {
                    try fixture.makeWorker(retention: DurableRetention(interval: .zero))
                }
                #expect(throws: DurableError.self) {
                    try fixture.makeWorker(retention: DurableRetention(completed: .seconds(-1)))
                }
            }
        }
    }
#endif
