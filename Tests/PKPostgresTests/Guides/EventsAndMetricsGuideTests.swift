#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    // The code of the article "Events and metrics" (PKPostgres.docc/EventsAndMetrics.md), as written there, so that
    // it compiles (Scripts/docs.sh checks that every example of the catalogue is in a test); then run against the test
    // server, where one is.

    // "Subscribing to events"
    private func watchFailures(of queue: DurableQueue) -> Task<Void, Never> {
        let events = queue.events()
        return Task {
            for await event in events where event.kind == .failed || event.kind == .discarded {
                print("\(event.job) (\(event.jobKind)) failed for good: \(event.error ?? "")")
            }
        }
    }

    // "Exposing metrics to Prometheus"
    private func metricsPage(queue: DurableQueue, workers: [DurableWorker]) async throws -> (
        contentType: String, body: String
    ) {
        let body = PrometheusExposition.text(
            workers: workers.map(\.metrics), queueStatistics: try await queue.queueStatistics())
        return (PrometheusExposition.contentType, body)
    }

    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct EventsAndMetricsGuideTests {
        @Test func theMetricsPageShowsTheJobsAndTheWorkers() async throws {
            try await withFixture { fixture in
                let watcher = watchFailures(of: fixture.queue)
                let id = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("guide"))
                let worker = try fixture.startWorker()
                _ = try await fixture.waitUntilFinished(id)
                // The worker counts an outcome after the commit that records it, so the row can be seen first.
                try await eventually("the worker to count the completion") { worker.metrics.statistics.completed == 1 }
                let page = try await metricsPage(queue: fixture.queue, workers: [worker])
                watcher.cancel()
                await watcher.value
                #expect(page.contentType.hasPrefix("text/plain; version=0.0.4"))
                #expect(page.body.contains("procedurekit_jobs{queue=\"default\",state=\"completed\"} 1\n"))
                #expect(page.body.contains("procedurekit_worker_completed_total{worker=\"\(worker.name)\"} 1\n"))
            }
        }
    }
#endif
