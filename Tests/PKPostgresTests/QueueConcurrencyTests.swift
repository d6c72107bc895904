#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Concurrency limits of named queues: a worker's own (``DurableWorker/queueConcurrency``) and the fleet's
    /// (``DurableQueue/setConcurrencyLimit(_:queue:)``), read from the order of the jobs' start and end events.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct QueueConcurrencyTests {

        /// The most jobs whose labels start with `prefix` that were running at once, from the events' order.
        static func mostAtOnce(_ probe: Probe, prefix: String) -> Int {
            var running = 0
            var most = 0
            for event in probe.events where event.label.hasPrefix(prefix) {
                switch event.kind {
                case .started: running += 1
                case .ended: running -= 1
                default: break
                }
                most = max(most, running)
            }
            return most
        }

        @Test func aWorkersLimitForAQueueHoldsWhileItsOtherQueuesUseTheRest() async throws {
            try await withFixture { fixture in
                var ids: [JobID] = []
                for index in 0..<4 {
                    var input = fixture.input("slow\(index)")
                    input.sleepMilliseconds = 100
                    ids.append(
                        try await fixture.queue.enqueue(
                            TestJob.self, input: input, options: DurableJobOptions(queue: "slow")))
                }
                for index in 0..<6 {
                    var input = fixture.input("fast\(index)")
                    // Long enough to overlap on a loaded machine: at 50 ms, a CI run saw each finish before the
                    // next was claimed.
                    input.sleepMilliseconds = 400
                    ids.append(try await fixture.queue.enqueue(TestJob.self, input: input))
                }
                try fixture.startWorker(concurrency: 4, queues: ["slow", "default"], queueConcurrency: ["slow": 1])
                for id in ids { #expect(try await fixture.waitUntilFinished(id).state == .completed) }
                #expect(Self.mostAtOnce(fixture.probe, prefix: "slow") == 1)
                #expect(Self.mostAtOnce(fixture.probe, prefix: "fast") >= 2, "the other queue used the other slots")
            }
        }

        @Test func theFleetsLimitForAQueueHoldsAcrossWorkers() async throws {
            try await withFixture { fixture in
                try await fixture.queue.setConcurrencyLimit(2, queue: "gpu")
                var ids: [JobID] = []
                for index in 0..<10 {
                    var input = fixture.input("gpu\(index)")
                    input.sleepMilliseconds = 60
                    ids.append(
                        try await fixture.queue.enqueue(
                            TestJob.self, input: input, options: DurableJobOptions(queue: "gpu")))
                }
                for _ in 0..<3 { try fixture.startWorker(concurrency: 4, queues: ["gpu"]) }
                for id in ids { #expect(try await fixture.waitUntilFinished(id).state == .completed) }
                #expect(Self.mostAtOnce(fixture.probe, prefix: "gpu") <= 2)
                // Lifted: jobs that wait to be released all run at once, three of them.
                try await fixture.queue.setConcurrencyLimit(nil, queue: "gpu")
                var more: [JobID] = []
                for index in 0..<3 {
                    var input = fixture.input("free\(index)")
                    input.runsUntilCancelled = true
                    more.append(
                        try await fixture.queue.enqueue(
                            TestJob.self, input: input, options: DurableJobOptions(queue: "gpu")))
                }
                try await eventually("three jobs of the queue to run at once") {
                    Self.mostAtOnce(fixture.probe, prefix: "free") == 3
                }
                fixture.probe.releaseWaitingJobs()
                for id in more { #expect(try await fixture.waitUntilFinished(id).state == .completed) }
            }
        }

        @Test func aZeroLimitHoldsTheQueueAndBadLimitsAreRefused() async throws {
            try await withFixture { fixture in
                try await fixture.queue.setConcurrencyLimit(0, queue: "held")
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("held"), options: DurableJobOptions(queue: "held"))
                try fixture.startWorker(queues: ["held"])
                try await Task.sleep(for: TestDatabase.pollInterval * 5)
                #expect(try await fixture.queue.job(id).state == .available)
                await #expect(throws: DurableError.self) {
                    try await fixture.queue.setConcurrencyLimit(-1, queue: "held")
                }
                #expect(throws: DurableError.self) {
                    try fixture.makeWorker(concurrency: 2, queues: ["a"], queueConcurrency: ["a": 3])
                }
                #expect(throws: DurableError.self) {
                    try fixture.makeWorker(queues: ["a"], queueConcurrency: ["b": 1])
                }
            }
        }
    }
#endif
