#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Several workers of one process racing for the same jobs: each job completes exactly once.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct ConcurrencyTests {

        /// Creates the table the jobs' completion hooks insert into (no unique key: duplicates must show).
        static func makeEffectsTable(_ fixture: TestFixture) async throws -> String {
            try await fixture.queue.migrate()
            let table = "\(fixture.schema).effects"
            try await fixture.sql("CREATE TABLE \(table) (job_id bigint NOT NULL, label text NOT NULL, worker text)")
            return table
        }

        /// Checks that `ids` completed once each: one effect row per job, no duplicates, every job completed.
        static func expectCompletedExactlyOnce(
            _ ids: [JobID], _ table: String, _ fixture: TestFixture, _ workers: [DurableWorker],
            sourceLocation: SourceLocation = #_sourceLocation
        ) async throws {
            #expect(
                try await fixture.count("SELECT count(*) FROM \(table)") == ids.count, sourceLocation: sourceLocation)
            #expect(
                try await fixture.count("SELECT count(DISTINCT job_id) FROM \(table)") == ids.count,
                sourceLocation: sourceLocation)
            let states = try await fixture.sql(
                "SELECT state, count(*) AS n FROM \(fixture.schema).jobs WHERE id = ANY($1::bigint[]) GROUP BY state",
                ["{" + ids.map { String($0.rawValue) }.joined(separator: ",") + "}"])
            #expect(
                states.rows.map { [$0["state"], $0["n"]] } == [["completed", String(ids.count)]],
                sourceLocation: sourceLocation)
            #expect(
                workers.map(\.statistics.completed).reduce(0, +) == ids.count, sourceLocation: sourceLocation)
            #expect(
                Set(fixture.probe.events(.completing).map(\.job)) == Set(ids), sourceLocation: sourceLocation)
            // Execution is at least once; every job ran.
            #expect(fixture.probe.tracker.entered >= ids.count, sourceLocation: sourceLocation)
        }

        @Test func workersRacingForManyJobsCompleteEachExactlyOnce() async throws {
            try await withFixture { fixture in
                let table = try await Self.makeEffectsTable(fixture)
                let workers = try (0..<4).map { _ in try fixture.startWorker(concurrency: 4) }
                let graph = DurableGraph()
                for index in 0..<300 {
                    var input = fixture.input("job \(index)", value: index)
                    input.effectsTable = table
                    graph.add(TestJob.self, input: input)
                }
                let enqueued = try await fixture.queue.enqueue(graph)
                let summary = try await withHangTimeout("the jobs to finish") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.isCompleted, "\(summary)")
                try await eventually("the workers to count their completions") {
                    workers.map(\.statistics.completed).reduce(0, +) >= 300
                }
                try await Self.expectCompletedExactlyOnce(enqueued.jobs, table, fixture, workers)
                #expect(workers.map(\.statistics.claimed).reduce(0, +) >= 300)
            }
        }

        @Test func jobsEnqueuedFromManyTasksWhileWorkersRunCompleteEachExactlyOnce() async throws {
            try await withFixture { fixture in
                let table = try await Self.makeEffectsTable(fixture)
                let workers = try (0..<3).map { _ in try fixture.startWorker(concurrency: 3) }
                let probe = fixture.probe.name
                let ids = try await withThrowingTaskGroup(of: [JobID].self) { group in
                    for task in 0..<6 {
                        group.addTask { [queue = fixture.queue] in
                            var ids: [JobID] = []
                            for index in 0..<20 {
                                var input = TestInput(probe: probe, label: "t\(task)-\(index)")
                                input.effectsTable = table
                                ids.append(try await queue.enqueue(TestJob.self, input: input))
                            }
                            return ids
                        }
                    }
                    return try await group.reduce(into: []) { $0 += $1 }
                }
                #expect(Set(ids).count == 120)
                for id in ids { _ = try await fixture.waitUntilFinished(id) }
                try await eventually("the workers to count their completions") {
                    workers.map(\.statistics.completed).reduce(0, +) >= 120
                }
                try await Self.expectCompletedExactlyOnce(ids, table, fixture, workers)
            }
        }

        @Test func manyWaitersForOneJobAreAllAnswered() async throws {
            try await withFixture { fixture in
                var input = fixture.input("watched", value: 9)
                input.sleepMilliseconds = 100
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                try fixture.startWorker()
                let values = try await withThrowingTaskGroup(of: Int.self) { group in
                    for _ in 0..<10 { group.addTask { try await fixture.result(of: id, as: TestJob.self).value } }
                    return try await group.reduce(into: []) { $0.append($1) }
                }
                #expect(values == Array(repeating: 9, count: 10))
            }
        }
    }
#endif
