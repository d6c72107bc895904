#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Exclusive categories: fleet-wide mutual exclusion across workers.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct ExclusivityTests {

        /// Checks that no two runs of jobs sharing a category overlapped: one ended before the other started.
        static func expectNoOverlap(
            _ categories: [String: Set<String>], _ probe: Probe, sourceLocation: SourceLocation = #_sourceLocation
        ) {
            var runs: [(label: String, start: Int, end: Int)] = []
            var starts: [String: Int] = [:]
            for event in probe.events {
                switch event.kind {
                case .started: starts[event.label] = event.sequence
                case .ended: runs.append((event.label, starts[event.label] ?? -1, event.sequence))
                case .sawCancellation, .completing: break
                }
            }
            for (index, first) in runs.enumerated() {
                for second in runs[(index + 1)...]
                where !(categories[first.label] ?? []).isDisjoint(with: categories[second.label] ?? []) {
                    #expect(
                        first.end < second.start || second.end < first.start,
                        "\(first.label) and \(second.label) ran at the same time", sourceLocation: sourceLocation)
                }
            }
        }

        @Test func jobsSharingACategoryNeverRunAtOnceAcrossWorkers() async throws {
            try await withFixture { fixture in
                let graph = DurableGraph()
                var categories: [String: Set<String>] = [:]
                for index in 0..<20 {
                    var input = fixture.input("printer \(index)")
                    input.sleepMilliseconds = 20
                    categories[input.label] = ["printer"]
                    graph.add(TestJob.self, input: input, options: DurableJobOptions(exclusiveCategories: ["printer"]))
                }
                for _ in 0..<3 { try fixture.startWorker(concurrency: 4) }
                let enqueued = try await fixture.queue.enqueue(graph)
                let summary = try await withHangTimeout("the jobs to finish") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.isCompleted, "\(summary)")
                #expect(fixture.probe.tracker.maxConcurrent == 1)
                #expect(fixture.probe.tracker.entered >= 20)
                Self.expectNoOverlap(categories, fixture.probe)
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).exclusive_categories") == 0)
            }
        }

        @Test func aJobWithTwoCategoriesExcludesTheJobsOfEither() async throws {
            try await withFixture { fixture in
                let graph = DurableGraph()
                var categories: [String: Set<String>] = [:]
                for index in 0..<24 {
                    let held: [String] = [["a"], ["b"], ["a", "b"]][index % 3]
                    var input = fixture.input("\(held.joined()) \(index)")
                    input.sleepMilliseconds = 10
                    categories[input.label] = Set(held)
                    graph.add(TestJob.self, input: input, options: DurableJobOptions(exclusiveCategories: held))
                }
                // Jobs without a category are never held back.
                for index in 0..<6 { graph.add(TestJob.self, input: fixture.input("free \(index)")) }
                for _ in 0..<3 { try fixture.startWorker(concurrency: 4) }
                let enqueued = try await fixture.queue.enqueue(graph)
                let summary = try await withHangTimeout("the jobs to finish") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.isCompleted, "\(summary)")
                #expect(fixture.probe.tracker.entered >= 30)
                Self.expectNoOverlap(categories, fixture.probe)
            }
        }

        @Test func aFailedAttemptFreesItsCategoryForTheNextJob() async throws {
            try await withFixture { fixture in
                var failing = fixture.input("fails")
                failing.failingAttempts = 1
                let options = DurableJobOptions(
                    retry: DurableRetryPolicy(maxAttempts: 1, wait: .immediate), exclusiveCategories: ["disk"])
                let failed = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                let next = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("next"), options: options)
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(failed).state == .failed)
                #expect(try await fixture.waitUntilFinished(next).state == .completed)
            }
        }
    }
#endif
