#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Graphs of durable jobs: dependencies, result injection (`inputFrom`) and failure propagation.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct GraphTests {

        /// Checks that every job of `edges` (dependent ← dependency) started after its dependency's completion.
        static func expectDependenciesCompletedFirst(
            _ edges: [(dependent: String, dependency: String)], _ probe: Probe,
            sourceLocation: SourceLocation = #_sourceLocation
        ) {
            let completed = Dictionary(
                probe.events(.completing).map { ($0.label, $0.sequence) }, uniquingKeysWith: { first, _ in first })
            for event in probe.events(.started) {
                for edge in edges where edge.dependent == event.label {
                    guard let done = completed[edge.dependency] else {
                        Issue.record(
                            "\(edge.dependent) started, but \(edge.dependency) never completed",
                            sourceLocation: sourceLocation)
                        continue
                    }
                    #expect(
                        done < event.sequence, "\(edge.dependent) started before \(edge.dependency) completed",
                        sourceLocation: sourceLocation)
                }
            }
        }

        @Test func inputFromFeedsADependencysOutputIntoTheDependentsInput() async throws {
            try await withFixture { fixture in
                let graph = DurableGraph()
                let source = graph.add(TestJob.self, input: fixture.input("source", value: 21))
                let relay = graph.add(Relay.self, inputFrom: source)
                let again = graph.add(Relay.self, inputFrom: relay)
                #expect(graph.count == 3)
                let enqueued = try await fixture.queue.enqueue(graph)
                #expect(try await fixture.queue.job(enqueued[relay]).state == .blocked)
                #expect(try await fixture.queue.job(enqueued[relay]).pendingDependencies == 1)
                try fixture.startWorker()
                let output = try await fixture.result(of: enqueued[again], as: Relay.self)
                #expect(output.value == 84)
                #expect(output.label == "source>relay>relay")
                #expect(try await fixture.result(of: enqueued[relay], as: Relay.self).value == 42)
                let summary = try await fixture.queue.graph(enqueued.id)
                #expect(summary.isCompleted)
                #expect(summary.total == 3)
                #expect(try await fixture.queue.job(enqueued[source]).graph == enqueued.id)
            }
        }

        @Test func inputFromWorksForJobsEnqueuedOneByOne() async throws {
            try await withFixture { fixture in
                let source = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("source", value: 5))
                let placeholder = TestOutput(probe: fixture.probe.name, label: "placeholder", value: -1, attempt: 0)
                let relay = try await fixture.queue.enqueue(
                    Relay.self, input: placeholder, options: DurableJobOptions(inputFrom: source))
                try fixture.startWorker()
                let output = try await fixture.result(of: relay, as: Relay.self)
                #expect(output.value == 10)
                #expect(output.label == "source>relay")
            }
        }

        @Test func aDependentStartsOnlyAfterItsDependenciesCompleted() async throws {
            try await withFixture { fixture in
                // A diamond, then a chain: slow dependencies, so that a premature start would have its chance.
                let graph = DurableGraph()
                func slow(_ label: String) -> TestInput {
                    var input = fixture.input(label)
                    input.sleepMilliseconds = 100
                    return input
                }
                let top = graph.add(TestJob.self, input: slow("top"))
                let left = graph.add(TestJob.self, input: slow("left"), after: [top])
                let right = graph.add(TestJob.self, input: fixture.input("right"), after: [top])
                let bottom = graph.add(TestJob.self, input: slow("bottom"), after: [left, right])
                graph.add(TestJob.self, input: fixture.input("tail"), after: [bottom])
                let enqueued = try await fixture.queue.enqueue(graph)
                try fixture.startWorker(concurrency: 4)
                try fixture.startWorker(concurrency: 4)
                let summary = try await withHangTimeout("the graph to finish") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.isCompleted)
                Self.expectDependenciesCompletedFirst(
                    [("left", "top"), ("right", "top"), ("bottom", "left"), ("bottom", "right"), ("tail", "bottom")],
                    fixture.probe)
                #expect(Set(fixture.probe.startedLabels) == ["top", "left", "right", "bottom", "tail"])
            }
        }

        @Test func aFailedDependencyCancelsItsDependentsTransitivelyUnlessTheyIgnoreFailures() async throws {
            try await withFixture { fixture in
                let graph = DurableGraph()
                var failing = fixture.input("a")
                failing.failingAttempts = 1
                let a = graph.add(TestJob.self, input: failing, options: DurableJobOptions(retry: .never))
                let b = graph.add(TestJob.self, input: fixture.input("b"), after: [a])
                let c = graph.add(TestJob.self, input: fixture.input("c"), after: [b])
                let tolerant = graph.add(
                    TestJob.self, input: fixture.input("tolerant"),
                    options: DurableJobOptions(ignoreFailedDependencies: true), after: [a])
                let afterTolerant = graph.add(TestJob.self, input: fixture.input("after tolerant"), after: [tolerant])
                let enqueued = try await fixture.queue.enqueue(graph)
                try fixture.startWorker()
                let summary = try await withHangTimeout("the graph to finish") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.counts == [.failed: 1, .cancelled: 2, .completed: 2])
                #expect(!summary.isCompleted)
                #expect(try await fixture.queue.job(enqueued[a]).state == .failed)
                let cancelledB = try await fixture.queue.job(enqueued[b])
                #expect(cancelledB.state == .cancelled)
                #expect(cancelledB.attempt == 0)
                #expect(cancelledB.errors.count == 1)
                let cancelledC = try await fixture.queue.job(enqueued[c])
                #expect(cancelledC.state == .cancelled)
                #expect(cancelledC.errors == ["dependency \(enqueued[b].rawValue) failed or was cancelled"])
                #expect(try await fixture.queue.job(enqueued[tolerant]).state == .completed)
                #expect(try await fixture.queue.job(enqueued[afterTolerant]).state == .completed)
                #expect(Set(fixture.probe.startedLabels) == ["a", "tolerant", "after tolerant"])
                await #expect(throws: DurableError.jobCancelled(enqueued[c], errors: cancelledC.errors)) {
                    try await fixture.result(of: enqueued[c], as: TestJob.self)
                }
            }
        }

        @Test func aJobEnqueuedAfterAFailedDependencyIsCancelledAtOnce() async throws {
            try await withFixture { fixture in
                let failed = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("failed"))
                #expect(try await fixture.queue.cancel(failed) == .cancelled)
                let late = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("late"), options: DurableJobOptions(dependencies: [failed]))
                #expect(try await fixture.queue.job(late).state == .cancelled)
                let tolerant = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("tolerant"),
                    options: DurableJobOptions(dependencies: [failed], ignoreFailedDependencies: true))
                #expect(try await fixture.queue.job(tolerant).state == .available)
            }
        }

        @Test func aNodeCannotDependOnANodeAddedAfterIt() async throws {
            try await withFixture { fixture in
                try await fixture.queue.migrate()
                let other = DurableGraph()
                other.add(TestJob.self, input: fixture.input("x"))
                let foreign = other.add(TestJob.self, input: fixture.input("y"))
                let graph = DurableGraph()
                graph.add(TestJob.self, input: fixture.input("z"), after: [foreign])
                await #expect(throws: DurableError.self) { try await fixture.queue.enqueue(graph) }
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == 0)
            }
        }

        @Test func aLargeRandomGraphCompletesOverSeveralWorkersInDependencyOrder() async throws {
            try await withFixture { fixture in
                var random = SplitMix(seed: 0x5EED_2024)
                let graph = DurableGraph()
                var nodes: [DurableGraph.Node] = []
                var edges: [(dependent: String, dependency: String)] = []
                for index in 0..<200 {
                    var after: Set<Int> = []
                    if index > 0 {
                        for _ in 0..<Int(random.next() % 4) { after.insert(Int(random.next() % UInt64(index))) }
                    }
                    for dependency in after { edges.append(("n\(index)", "n\(dependency)")) }
                    nodes.append(
                        graph.add(
                            TestJob.self, input: fixture.input("n\(index)", value: index),
                            after: after.sorted().map { nodes[$0] }))
                }
                let enqueued = try await fixture.queue.enqueue(graph)
                #expect(enqueued.jobs.count == 200)
                for _ in 0..<3 { try fixture.startWorker(concurrency: 4) }
                let summary = try await withHangTimeout("the graph to finish") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.isCompleted, "\(summary)")
                #expect(summary.total == 200)
                #expect(Set(fixture.probe.startedLabels) == Set((0..<200).map { "n\($0)" }))
                #expect(fixture.probe.events(.completing).count == 200)
                Self.expectDependenciesCompletedFirst(edges, fixture.probe)
            }
        }
    }

    /// A seeded random number generator, so that a failing random graph can be rebuilt.
    struct SplitMix: RandomNumberGenerator {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }
#endif
