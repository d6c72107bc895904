// W24: how far one PostgreSQL goes. 100,000 jobs (5,000 in a quick run) through eight workers: their throughput
// draining a backlog; then the pickup latency (enqueue → execute) while a steady enqueuer keeps the fleet at half
// that throughput.
import Foundation

#if Postgres
    import Dispatch
    import PKPostgres

    /// W24's fleet: eight DurableWorkers of four slots each, in this process, on one server.
    struct FleetScaleBench {
        let bench: DurableBench
        let workers = 8
        let concurrency = 4

        /// Seconds for `count` inserted jobs to drain through the fleet.
        func drain(_ count: Int) throws -> Double {
            try bench.insert(count)
            return try bench.throughWorkers(count, workers: workers, concurrency: concurrency)
        }

        /// Pickup latencies (milliseconds, sorted) while jobs are enqueued at `rate` jobs/s for `seconds`, in
        /// batches every 10 ms (each job stamped with its batch's enqueue), with the fleet running.
        func pickupUnderLoad(rate: Double, seconds: Double) throws -> [Double] {
            let fleet = try (0..<workers).map { index in
                try DurableWorker(
                    queue: bench.queue, name: "scale-\(index)", concurrency: concurrency,
                    pollInterval: .milliseconds(50))
            }
            for worker in fleet { try worker.start() }
            defer {
                for worker in fleet { worker.shutdown(gracePeriod: .zero) }
                for worker in fleet { _ = worker.syncWaitUntilStopped(timeout: .seconds(30)) }
            }
            PKBenchmarks.pickupLatencies.withLock { $0.removeAll() }
            let perBatch = max(1, Int((rate / 100).rounded()))
            let batches = Int(seconds * 100)
            let start = DispatchTime.now().uptimeNanoseconds
            var enqueued = 0
            for batch in 0..<batches {
                let due = start + UInt64(batch) * 10_000_000
                let now = DispatchTime.now().uptimeNanoseconds
                if due > now { Thread.sleep(forTimeInterval: Double(due - now) / 1e9) }
                let stamp = BenchStamp(enqueuedAt: DispatchTime.now().uptimeNanoseconds)
                let inputs = Array(repeating: stamp, count: perBatch)
                _ = try bench.queue.withTransaction { transaction in
                    try bench.queue.enqueue(BenchJob.self, inputs: inputs, in: transaction)
                }
                enqueued += perBatch
            }
            let deadline = Date().addingTimeInterval(60)
            while PKBenchmarks.pickupLatencies.withLock({ $0.count }) < enqueued, Date() < deadline {
                Thread.sleep(forTimeInterval: 0.005)
            }
            return PKBenchmarks.pickupLatencies.withLock { $0 }.map { Double($0) / 1e6 }.sorted()
        }
    }

    /// W24: the fleet's throughput, then its pickup latency at half of it.
    @MainActor func measureFleetScale(url: String) throws {
        let bench = try DurableBench(url: url)
        defer { bench.drop() }
        let scale = FleetScaleBench(bench: bench)
        let jobs = quick ? 5_000 : 100_000
        let seconds = try scale.drain(jobs)
        let perSecond = Double(jobs) / seconds
        rows.append(
            Row(
                workload: "W24 \(jobs) jobs through 8 DurableWorkers × 4, one PostgreSQL",
                contender: "drain a backlog", operations: jobs, medianSeconds: seconds,
                microsecondsPerOperation: seconds * 1e6 / Double(jobs),
                target: String(format: "reported, no target: %.0f jobs/s", perSecond), met: nil))
        let rate = perSecond / 2
        let latencies = try scale.pickupUnderLoad(rate: rate, seconds: quick ? 3 : 20)
        guard !latencies.isEmpty else { throw PostgresError(kind: .unexpectedResult, message: "no job was picked up") }
        let p50 = latencies[latencies.count / 2]
        let p99 = latencies[min(latencies.count - 1, latencies.count * 99 / 100)]
        rows.append(
            Row(
                workload: "W24 \(jobs) jobs through 8 DurableWorkers × 4, one PostgreSQL",
                contender: String(format: "pickup at half load (%.0f jobs/s)", rate), operations: latencies.count,
                medianSeconds: p50 / 1_000, microsecondsPerOperation: p50 * 1_000,
                target: String(format: "p99 ≤ 100 ms (p50 %.1f ms, p99 %.1f ms)", p50, p99), met: p99 <= 100))
    }
#endif
