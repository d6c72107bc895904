#if Postgres
    import Dispatch
    import Foundation
    import PKPostgres

    /// W23: enqueueing jobs in one batch (one statement) against one enqueue (one transaction) each, alternately,
    /// through the queue's own API; the table is emptied between rounds.
    @MainActor func measureBatchInsert(url: String) throws {
        let jobs = quick ? 1_000 : 10_000
        let bench = try DurableBench(url: url)
        defer { bench.drop() }
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        let inputs = (0..<jobs).map { _ in BenchStamp(enqueuedAt: 0) }
        let names = ["enqueue(_:inputs:) in one batch", "enqueue(_:input:) one at a time"]
        var results = names.map { Measurement(contender: $0) }
        for round in 0..<(quick ? 2 : 4) {
            for index in round.isMultiple(of: 2) ? [0, 1] : [1, 0] {
                try connection.execute("TRUNCATE \(bench.schema).jobs CASCADE")
                let start = DispatchTime.now().uptimeNanoseconds
                if index == 0 {
                    _ = try bench.queue.withTransaction {
                        try bench.queue.enqueue(BenchJob.self, inputs: inputs, in: $0)
                    }
                } else {
                    for input in inputs { _ = try bench.queue.enqueue(BenchJob.self, input: input) }
                }
                results[index].seconds.append(Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9)
            }
        }
        let w23 = Workload(
            id: "W23", title: "enqueue \(jobs) jobs (PostgreSQL)", operations: jobs, contenders: [],
            target: { m in
                let r = ratio(m, names[1], names[0])
                return (String(format: "batch ≥10× single enqueues (%.1f×)", r), r >= 10)
            })
        report(w23, results)
    }
#endif
