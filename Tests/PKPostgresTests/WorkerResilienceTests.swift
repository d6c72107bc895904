#if Postgres
    import Foundation
    import PKObservers
    import PKPostgres
    import Testing

    /// A worker whose database connections are dropped under it, and a worker's jobs seen by PKObservers' tools.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct WorkerResilienceTests {

        @Test func connectionsDroppedByTheServerAreReopenedAndEveryJobCompletesOnce() async throws {
            try await withFixture { fixture in
                let table = try await ConcurrencyTests.makeEffectsTable(fixture)
                // The worker's connections carry the schema's name, so that only they are terminated (other suites
                // share the server).
                let queue = try DurableQueue(
                    connectionString: TestDatabase.url + " application_name=\(fixture.schema)", schema: fixture.schema)
                try queue.register(TestJob.self)
                try fixture.startWorker(concurrency: 2, queue: queue)
                let graph = DurableGraph()
                for index in 0..<40 {
                    var input = fixture.input("job \(index)", value: index)
                    input.effectsTable = table
                    input.sleepMilliseconds = 30
                    graph.add(TestJob.self, input: input)
                }
                let enqueued = try await fixture.queue.enqueue(graph)
                var terminated = 0
                for _ in 0..<5 {
                    try await Task.sleep(for: .milliseconds(150))
                    terminated += try await fixture.count(
                        "SELECT count(pg_terminate_backend(pid)) FROM pg_stat_activity WHERE application_name = $1",
                        [fixture.schema])
                }
                let summary = try await withHangTimeout("the jobs to finish", timeout: .seconds(60)) {
                    try await fixture.queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(terminated > 0, "no connection of the worker was terminated")
                #expect(summary.isCompleted, "\(summary)")
                #expect(try await fixture.count("SELECT count(*) FROM \(table)") == 40)
                #expect(try await fixture.count("SELECT count(DISTINCT job_id) FROM \(table)") == 40)
            }
        }

        @Test func aTraceRecorderOnTheWorkersQueueRecordsItsJobs() async throws {
            try await withFixture { fixture in
                let worker = try fixture.makeWorker()
                let recorder = TraceRecorder(name: "durable worker")
                worker.procedureQueue.addObserver(recorder)
                try worker.start()
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("traced"))
                _ = try await fixture.waitUntilFinished(id)
                try await eventually("the trace to hold the job") {
                    String(decoding: recorder.traceData(), as: UTF8.self).contains("TestJob")
                }
                let trace = String(decoding: recorder.traceData(), as: UTF8.self)
                #expect(trace.contains("durable worker"))
                #expect(trace.contains("finished"))
                withExtendedLifetime(recorder) {}
            }
        }
    }
#endif
