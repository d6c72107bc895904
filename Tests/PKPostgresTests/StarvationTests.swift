#if Postgres
    import Foundation
    import PKCore
    import PKPostgres
    import Testing

    /// Waits are bounded: a job needing two exclusive categories, or of a low priority, runs despite steady
    /// competing traffic once it has waited longer than the worker's starvation limit.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct StarvationTests {

        static let limit: Duration = .milliseconds(800)

        /// Keeps competing jobs coming until `stop` says so: every `interval`, one job of each lane, faster than
        /// the worker finishes them, so that there is always a younger competitor waiting. Returns how many.
        static func compete(
            _ fixture: TestFixture, lanes: [(label: String, options: DurableJobOptions)], sleepMilliseconds: Int,
            every interval: Duration, until stop: @escaping @Sendable () -> Bool
        ) async throws -> Int {
            var count = 0
            while !stop() {
                for lane in lanes {
                    var input = fixture.input("\(lane.label) \(count)")
                    input.sleepMilliseconds = sleepMilliseconds
                    _ = try await fixture.queue.enqueue(TestJob.self, input: input, options: lane.options)
                    count += 1
                }
                try await Task.sleep(for: interval)
            }
            return count
        }

        /// Jobs enqueued after `job`: those that started after it had waited out the limit (and some slack for a
        /// claim already under way) but before it (it must meet none of these), and those that were waiting when
        /// it started (the competition it went ahead of).
        static func younger(than job: JobID, _ fixture: TestFixture) async throws -> (overtook: Int, passed: Int) {
            let row = try #require(
                try await fixture.sql(
                    """
                    SELECT count(*) FILTER (WHERE o.started_at > s.run_at + $2::float8 * interval '1 second'
                            AND o.started_at < s.started_at) AS overtook,
                        count(*) FILTER (WHERE o.created_at < s.started_at
                            AND (o.started_at IS NULL OR o.started_at > s.started_at)) AS passed
                    FROM \(fixture.schema).jobs o, \(fixture.schema).jobs s
                    WHERE s.id = $1::bigint AND o.id > s.id
                    """, [String(job.rawValue), String(Self.limit.timeInterval + 0.3)]
                ).rows.first)
            return (Int(try row.int64("overtook")), Int(try row.int64("passed")))
        }

        @Test func aJobNeedingTwoCategoriesRunsDespiteSteadyTrafficOnEach() async throws {
            try await withFixture { fixture in
                try fixture.startWorker(concurrency: 4, starvationLimit: Self.limit)
                let done = PKMutexBox(false)
                // Jobs on A and jobs on B, each 150 ms, two of each every 100 ms: A and B are never free together.
                let lanes: [(label: String, options: DurableJobOptions)] = [
                    ("a", DurableJobOptions(exclusiveCategories: ["A"])),
                    ("b", DurableJobOptions(exclusiveCategories: ["B"])),
                ]
                async let competitors = Self.compete(
                    fixture, lanes: lanes, sleepMilliseconds: 150, every: .milliseconds(50)
                ) { done.value }
                try await eventually("the competition to get going") {
                    fixture.probe.startedLabels.count >= 2
                }
                // Of a lower priority than the competition, so that whenever A or B is released, a competitor waiting
                // for it goes first (without a bound, always).
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("both"),
                    options: DurableJobOptions(priority: -10, exclusiveCategories: ["A", "B"]))
                let job = try await fixture.waitUntilFinished(id)
                done.value = true
                _ = try await competitors
                #expect(job.state == .completed)
                let (overtook, passed) = try await Self.younger(than: id, fixture)
                #expect(passed > 0, "younger jobs were waiting for its categories when it started")
                #expect(overtook == 0, "no younger job started once it had waited out the limit")
            }
        }

        @Test func aLowPriorityJobRunsDespiteSteadyHigherPriorityTraffic() async throws {
            try await withFixture { fixture in
                try fixture.startWorker(concurrency: 1, starvationLimit: Self.limit)
                let done = PKMutexBox(false)
                // A 30 ms job of priority 10 every 20 ms on one slot: higher-priority jobs are always waiting.
                async let competitors = Self.compete(
                    fixture, lanes: [("high", DurableJobOptions(priority: 10))], sleepMilliseconds: 30,
                    every: .milliseconds(20)
                ) { done.value }
                try await eventually("the competition to get going") { fixture.probe.startedLabels.count >= 2 }
                let id = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("low"), options: DurableJobOptions(priority: -10))
                let job = try await fixture.waitUntilFinished(id)
                done.value = true
                _ = try await competitors
                #expect(job.state == .completed)
                let (overtook, passed) = try await Self.younger(than: id, fixture)
                #expect(passed > 0, "younger jobs of higher priority were waiting when it started")
                #expect(overtook == 0, "no younger job started once it had waited out the limit")
            }
        }
    }

    /// A value shared between tasks of a test.
    final class PKMutexBox<Value: Sendable>: Sendable {
        private let storage: PKMutex<Value>
        init(_ value: Value) { storage = PKMutex(value) }
        var value: Value {
            get { storage.withLock { $0 } }
            set { storage.withLock { $0 = newValue } }
        }
    }
#endif
