// W22 and W25: what one claim costs beside jobs it cannot take, against a claim on an empty table.
import Foundation

#if Postgres
    import Dispatch
    import PKPostgres
    /// W22: what one claim costs when the table also holds 100,000 jobs due tomorrow and 100,000 jobs of a kind no
    /// worker runs, against the same claim on a table holding only the job it takes. Both claims run the worker's
    /// own code (`DurableStore.claim`, one call of the schema's `claim_jobs`); only the claims are timed.
    ///
    /// W25 is the same measurement with another crowd: 100,000 due jobs of the claimed kind spread over 100 named
    /// queues the claim does not serve (a backlog in other queues).
    struct ClaimCostBench {
        /// What else the crowded table holds.
        enum Crowd {
            /// W22: 100,000 jobs due tomorrow and 100,000 of a kind no worker runs.
            case futureAndOtherKinds
            /// W25: 100,000 due jobs of the same kind in 100 other named queues.
            case otherQueues
        }

        let empty: DurableBench
        let crowded: DurableBench

        init(url: String, crowd: Crowd = .futureAndOtherKinds) throws {
            empty = try DurableBench(url: url)
            crowded = try DurableBench(url: url)
            let retry = String(decoding: try JSONEncoder().encode(DurableRetryPolicy.never), as: UTF8.self)
            let connection = try PostgresConnection(url)
            defer { connection.close() }
            switch crowd {
            case .futureAndOtherKinds:
                // At a higher priority than the job claimed, so that an index walked in priority order meets them
                // first.
                try connection.execute(
                    """
                    INSERT INTO \(crowded.schema).jobs (kind, state, priority, run_at, input, retry)
                    SELECT $1, 'scheduled', 10, now() + interval '1 day', '{}', $2::jsonb
                    FROM generate_series(1, 100000)
                    """, [BenchJob.kind, retry])
                try connection.execute(
                    """
                    INSERT INTO \(crowded.schema).jobs (kind, state, priority, input, retry)
                    SELECT 'bench.elsewhere', 'available', 10, '{}', $1::jsonb FROM generate_series(1, 100000)
                    """, [retry])
            case .otherQueues:
                // Older and at a higher priority than the job claimed: first in any order but the queue's.
                try connection.execute(
                    """
                    INSERT INTO \(crowded.schema).jobs (kind, state, priority, run_at, input, retry, queue)
                    SELECT $1, 'available', 10, now() - interval '1 minute', '{}', $2::jsonb, 'backlog-' || (n % 100)
                    FROM generate_series(1, 100000) n
                    """, [BenchJob.kind, retry])
            }
            // Both tables vacuumed now and not during the measurement: autovacuum visits a small table after a few
            // dozen changes and a large one after tens of thousands, so it would run on the empty table only.
            for schema in [crowded.schema, empty.schema] {
                try connection.execute("VACUUM ANALYZE \(schema).jobs")
                try connection.execute("ALTER TABLE \(schema).jobs SET (autovacuum_enabled = false)")
            }
        }

        func drop() {
            empty.drop()
            crowded.drop()
        }

        /// Seconds spent in `count` claims of one due job each on `bench`'s table (inserting it before each claim,
        /// deleting it after, and vacuuming the table after the round are not timed).
        static func claims(_ count: Int, on bench: DurableBench, _ connection: PostgresConnection) throws -> Double {
            let retry = String(decoding: try JSONEncoder().encode(DurableRetryPolicy.never), as: UTF8.self)
            var seconds = 0.0
            for _ in 0..<count {
                try connection.execute(
                    "INSERT INTO \(bench.schema).jobs (kind, state, input, retry) VALUES ($1, 'available', '{}', $2::jsonb)",
                    [BenchJob.kind, retry])
                let start = DispatchTime.now().uptimeNanoseconds
                let claim = try bench.queue.store.claim(
                    kinds: [BenchJob.kind], limit: 1, owner: "bench-claims", lease: 30, starving: 60, skip: [],
                    connection)
                seconds += Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
                guard claim.jobs.count == 1 else {
                    throw PostgresError(kind: .unexpectedResult, message: "a claim took \(claim.jobs.count) jobs")
                }
                try connection.execute("DELETE FROM \(bench.schema).jobs WHERE state = 'running'")
            }
            // Each round leaves the table as it found it.
            try connection.execute("VACUUM \(bench.schema).jobs")
            return seconds
        }
    }

    /// W22: a claim beside 200,000 jobs it cannot take, against a claim on an empty table, alternately. W25: the
    /// same beside 100,000 due jobs of its kind in 100 other named queues.
    @MainActor func measureClaimCost(url: String, crowd: ClaimCostBench.Crowd = .futureAndOtherKinds) throws {
        let claims = quick ? 100 : 500
        let bench = try ClaimCostBench(url: url, crowd: crowd)
        defer { bench.drop() }
        let connection = try PostgresConnection(url)
        defer { connection.close() }
        let crowdName =
            crowd == .futureAndOtherKinds
            ? "beside 100k future + 100k other-kind jobs" : "beside 100k due jobs in 100 other queues"
        let names = [crowdName, "on an empty table"]
        var results = names.map { Measurement(contender: $0) }
        // Warm-up: the crowded table's indexes are read into memory as a running system's would be.
        _ = try ClaimCostBench.claims(100, on: bench.crowded, connection)
        _ = try ClaimCostBench.claims(100, on: bench.empty, connection)
        // Three rounds even in a quick run (a claim is under a millisecond), each contender first in turn.
        for round in 0..<(quick ? 3 : 5) {
            let order = round.isMultiple(of: 2) ? [0, 1] : [1, 0]
            for index in order {
                let table = index == 0 ? bench.crowded : bench.empty
                results[index].seconds.append(try ClaimCostBench.claims(claims, on: table, connection))
            }
        }
        let w22 = Workload(
            id: crowd == .futureAndOtherKinds ? "W22" : "W25",
            title: crowd == .futureAndOtherKinds
                ? "claim of one due job (PostgreSQL)" : "claim of one due job, other queues backlogged (PostgreSQL)",
            operations: claims, contenders: [],
            target: { m in
                let r = ratio(m, names[0], names[1])
                return (String(format: "≤1.2×empty (%.2f)", r), r <= 1.2)
            })
        report(w22, results)
    }
#endif
