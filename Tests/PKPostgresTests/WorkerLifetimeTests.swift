#if Postgres
    import Foundation
    import PKPostgres
    import PKTesting
    import Testing

    /// A stopped worker lets go of itself, its queue and its jobs' procedures.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct WorkerLifetimeTests {

        /// Runs a worker of a queue of its own on `input` until it stopped, tracking both in `leaks`.
        static func runAndStop(
            _ fixture: TestFixture, _ input: TestInput, waitForCompletion: Bool, leaks: LeakCheck
        ) async throws {
            let queue = try fixture.makeQueue()
            try queue.register(TestJob.self)
            let worker = try DurableWorker(
                queue: queue, name: "\(fixture.schema)-leaky", concurrency: 2, leaseDuration: TestDatabase.lease,
                pollInterval: TestDatabase.pollInterval)
            leaks.track(worker, name: "the worker")
            leaks.track(queue, name: "the queue")
            // Whatever happens below, the worker does not outlive the test.
            defer { worker.shutdown(gracePeriod: .zero) }
            try worker.start()
            let id = try await queue.enqueue(TestJob.self, input: input)
            if waitForCompletion {
                #expect(
                    try await withHangTimeout("the job") { try await queue.waitUntilFinished(id) }.state == .completed)
            } else {
                try await eventually("the job to start") { fixture.probe.hasStarted(input.label) }
            }
            worker.shutdown(gracePeriod: .zero)
            try await withHangTimeout("the worker to stop") { await worker.waitUntilStopped() }
        }

        @Test func aStoppedWorkerAndTheProceduresOfItsFinishedJobsAreReleased() async throws {
            try await withFixture { fixture in
                let leaks = LeakCheck()
                try await Self.runAndStop(fixture, fixture.input("finished"), waitForCompletion: true, leaks: leaks)
                #expect(fixture.probe.startedLabels == ["finished"])
                #expect(await leaks.unreleased(timeout: 20) == [])
                #expect(await fixture.probe.leaks.unreleased(timeout: 20) == [])
            }
        }

        @Test func aWorkerStoppedWhileItsJobRanIsReleasedWithThatJobsProcedure() async throws {
            try await withFixture { fixture in
                let leaks = LeakCheck()
                var input = fixture.input("interrupted")
                input.runsUntilCancelled = true
                try await Self.runAndStop(fixture, input, waitForCompletion: false, leaks: leaks)
                #expect(fixture.probe.events(.sawCancellation).count == 1)
                #expect(await leaks.unreleased(timeout: 20) == [])
                #expect(await fixture.probe.leaks.unreleased(timeout: 20) == [])
            }
        }
    }
#endif
