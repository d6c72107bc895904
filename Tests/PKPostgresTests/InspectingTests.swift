#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// What the dashboard reads besides listings: a job's dependency graph, the workers with their jobs, the
    /// periodic jobs with their next periods, and the jobs finished per minute.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"))
    struct InspectingTests {

        @Test func aJobsGraphHoldsWhatItDependsOnAndWhatDependsOnItWithDepths() async throws {
            try await withFixture { fixture in
                // a → b → d ← c ← a, d → e → g ← a (a shortcut); and f, unrelated.
                let graph = DurableGraph()
                let a = graph.add(TestJob.self, input: fixture.input("a"))
                let b = graph.add(TestJob.self, input: fixture.input("b"), after: [a])
                let c = graph.add(TestJob.self, input: fixture.input("c"), after: [a])
                let d = graph.add(TestJob.self, input: fixture.input("d"), after: [b, c])
                let e = graph.add(TestJob.self, input: fixture.input("e"), after: [d])
                let g = graph.add(TestJob.self, input: fixture.input("g"), after: [a, e])
                let enqueued = try await fixture.queue.enqueue(graph)
                let unrelated = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("f"))
                let around = try await fixture.queue.dependencyGraph(of: enqueued[b])
                let depths = Dictionary(uniqueKeysWithValues: around.nodes.map { ($0.id, $0.depth) })
                #expect(depths == [enqueued[a]: -1, enqueued[b]: 0, enqueued[d]: 1, enqueued[e]: 2, enqueued[g]: 3])
                #expect(around.root == enqueued[b])
                #expect(!around.isTruncated)
                let edges = Set(around.edges.map { [$0.job, $0.dependsOn] })
                #expect(
                    edges
                        == [
                            [enqueued[b], enqueued[a]], [enqueued[d], enqueued[b]], [enqueued[e], enqueued[d]],
                            [enqueued[g], enqueued[e]], [enqueued[g], enqueued[a]],
                        ])
                // By the longest path: g is 4 from a (through e), not 1 (its own edge), so every edge points forward.
                let fromA = try await fixture.queue.dependencyGraph(of: enqueued[a])
                let depthFromA = Dictionary(uniqueKeysWithValues: fromA.nodes.map { ($0.id, $0.depth) })
                #expect(depthFromA[enqueued[g]] == 4)
                #expect(depthFromA[enqueued[c]] == 1)
                for edge in fromA.edges {
                    #expect(depthFromA[edge.dependsOn]! < depthFromA[edge.job]!)
                }
                let whole = try await fixture.queue.dependencyGraph(of: enqueued[d])
                #expect(Set(whole.nodes.map(\.id)) == Set([a, b, c, d, e, g].map { enqueued[$0] }))
                #expect(whole.edges.count == 7)
                #expect(whole.nodes.first { $0.id == enqueued[d] }?.state == .blocked)
                let alone = try await fixture.queue.dependencyGraph(of: unrelated)
                #expect(alone.nodes.map(\.id) == [unrelated])
                #expect(alone.edges.isEmpty)
                let cut = try await fixture.queue.dependencyGraph(of: enqueued[d], limit: 2)
                #expect(cut.isTruncated)
                #expect(cut.nodes.count == 2)
                await #expect(throws: DurableError.self) {
                    _ = try await fixture.queue.dependencyGraph(of: JobID(rawValue: 999_999_999))
                }
                await #expect(throws: DurableError.self) {
                    _ = try await fixture.queue.dependencyGraph(of: enqueued[a], limit: 0)
                }
            }
        }

        @Test func aWorkerIsListedWithItsJobsWhileItRunsAndForgottenWhenItStops() async throws {
            try await withFixture { fixture in
                var waiting = fixture.input("held")
                waiting.runsUntilCancelled = true
                let held = try await fixture.queue.enqueue(
                    TestJob.self, input: waiting, options: DurableJobOptions(queue: "mail"))
                let worker = try fixture.startWorker(concurrency: 3, queues: ["default", "mail"])
                try await eventually("the worker and its job to be listed") {
                    try await fixture.queue.workers().first?.running.map(\.id) == [held]
                }
                let status = try #require(try await fixture.queue.workers().first)
                #expect(status.name == worker.name)
                #expect(status.queues == ["default", "mail"])
                #expect(status.concurrency == 3)
                #expect(status.running.first?.queue == "mail")
                #expect(status.running.first.map { $0.leaseExpiresAt > status.lastSeenAt } == true)
                #expect(status.lastSeenAt >= status.startedAt)
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(held).state == .completed)
                try await fixture.stop(worker)
                #expect(try await fixture.queue.workers().isEmpty)
            }
        }

        @Test func aPeriodicJobIsListedWithItsScheduleAndNextPeriod() async throws {
            try await withFixture { fixture in
                let schedule = try DurableSchedule.every(.seconds(3_600))
                let hourly = try DurablePeriodicJob(
                    name: "hourly", schedule: schedule, TestJob.self, input: fixture.input("hourly"), runOnStart: false)
                try fixture.startWorker(periodicJobs: [hourly])
                try await eventually("the periodic job to be described") {
                    try await fixture.queue.periodicJobs().first?.nextPeriod != nil
                }
                let status = try #require(try await fixture.queue.periodicJobs().first)
                #expect(status.name == "hourly")
                #expect(status.kind == TestJob.kind)
                #expect(status.schedule == schedule.description)
                let next = try #require(status.nextPeriod)
                #expect(next > status.lastPeriod)
                #expect(next.timeIntervalSince(status.lastPeriod) <= 3_600)
            }
        }

        @Test func theFinishedJobsPerMinuteCountEachQueueAndOutcome() async throws {
            try await withFixture { fixture in
                var ids: [JobID] = []
                for index in 0..<3 {
                    ids.append(try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done \(index)")))
                }
                var failing = fixture.input("failing")
                failing.failingAttempts = 1
                ids.append(
                    try await fixture.queue.enqueue(
                        TestJob.self, input: failing, options: DurableJobOptions(retry: .never, queue: "other")))
                try fixture.startWorker(queues: ["default", "other"])
                for id in ids { _ = try await fixture.waitUntilFinished(id) }
                // Two minutes: the jobs may have finished either side of a minute's start.
                let samples = try await fixture.queue.throughput(minutes: 2)
                #expect(samples.filter { $0.queue == "default" }.reduce(0) { $0 + $1.completed } == 3)
                #expect(samples.filter { $0.queue == "other" }.reduce(0) { $0 + $1.failed } == 1)
                #expect(samples.map(\.minute) == samples.map(\.minute).sorted())
                await #expect(throws: DurableError.self) { _ = try await fixture.queue.throughput(minutes: 0) }
            }
        }
    }
#endif
