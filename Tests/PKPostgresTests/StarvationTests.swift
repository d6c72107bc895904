#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Waits are bounded: a job needing two exclusive categories, or of a low priority, runs despite steady
    /// competing traffic once it has waited longer than the worker's starvation limit.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct StarvationTests {

        static let limit: Duration = .milliseconds(800)

        /// Enqueues `job` (with `options`) and, in the same transaction after it, `count` competitors of each lane,
        /// each running `sleepMilliseconds`: younger than `job`, and more than the worker gets through for seconds.
        /// Returns `job`'s id.
        static func enqueue(
            _ label: String, options: DurableJobOptions, before count: Int,
            competitors lanes: [(label: String, options: DurableJobOptions)], sleepMilliseconds: Int,
            _ fixture: TestFixture
        ) async throws -> JobID {
            let graph = DurableGraph()
            let node = graph.add(TestJob.self, input: fixture.input(label), options: options)
            for index in 0..<count {
                for lane in lanes {
                    var input = fixture.input("\(lane.label) \(index)")
                    input.sleepMilliseconds = sleepMilliseconds
                    graph.add(TestJob.self, input: input, options: lane.options)
                }
            }
            return try await fixture.queue.enqueue(graph)[node]
        }

        /// Starts `count` jobs of each lane that run until released, and waits until they hold the worker (or
        /// their categories), so that the job under test meets busy categories and slots from the start.
        static func occupy(
            _ lanes: [(label: String, options: DurableJobOptions)], _ fixture: TestFixture
        ) async throws -> [JobID] {
            var ids: [JobID] = []
            for lane in lanes {
                var input = fixture.input("\(lane.label) first")
                input.sleepMilliseconds = 300
                ids.append(try await fixture.queue.enqueue(TestJob.self, input: input, options: lane.options))
            }
            try await eventually("the first competitors to start") {
                lanes.allSatisfy { lane in fixture.probe.hasStarted("\(lane.label) first") }
            }
            return ids
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
                        count(*) FILTER (WHERE o.started_at IS NULL OR o.started_at > s.started_at) AS passed
                    FROM \(fixture.schema).jobs o, \(fixture.schema).jobs s
                    WHERE s.id = $1::bigint AND o.id > s.id
                    """, [String(job.rawValue), String(Self.limit.timeInterval + 0.3)]
                ).rows.first)
            return (Int(try row.int64("overtook")), Int(try row.int64("passed")))
        }

        /// What happened around `job`, for a failure's message.
        static func story(of job: JobID, _ fixture: TestFixture) async throws -> String {
            let rows = try await fixture.sql(
                """
                SELECT o.id, o.input ->> 'label' AS label, o.categories::text AS categories,
                    round(extract(epoch FROM o.started_at - s.run_at)::numeric, 3) AS started,
                    round(extract(epoch FROM o.finished_at - s.run_at)::numeric, 3) AS finished
                FROM \(fixture.schema).jobs o, \(fixture.schema).jobs s WHERE s.id = $1::bigint
                ORDER BY o.started_at NULLS LAST LIMIT 40
                """, [String(job.rawValue)]
            ).rows
            return rows.map {
                "\($0["id"] ?? "") \($0["label"] ?? "") \($0["categories"] ?? "") "
                    + "\($0["started"] ?? "-")…\($0["finished"] ?? "-")"
            }.joined(separator: "; ")
        }

        @Test func jobsThatHaveWaitedTooLongGoOldestFirstWhateverTheirPriority() async throws {
            try await withFixture { fixture in
                // All due long ago, in one transaction (so with one start time): by age, the first added goes first,
                // though it has the lowest priority and needs both categories the others need one each of.
                let due = Date().addingTimeInterval(-60)
                let graph = DurableGraph()
                let oldest = graph.add(
                    TestJob.self, input: fixture.input("both"),
                    options: DurableJobOptions(priority: -10, runAt: due, exclusiveCategories: ["A", "B"]))
                graph.add(
                    TestJob.self, input: fixture.input("a"),
                    options: DurableJobOptions(priority: 10, runAt: due, exclusiveCategories: ["A"]))
                graph.add(
                    TestJob.self, input: fixture.input("b"),
                    options: DurableJobOptions(priority: 10, runAt: due, exclusiveCategories: ["B"]))
                let enqueued = try await fixture.queue.enqueue(graph)
                try fixture.startWorker(concurrency: 4, starvationLimit: Self.limit)
                let summary = try await withHangTimeout("the jobs") { [queue = fixture.queue] in
                    try await queue.waitUntilFinished(graph: enqueued.id)
                }
                #expect(summary.isCompleted)
                #expect(fixture.probe.startedLabels.first == "both", "\(fixture.probe.startedLabels)")
                #expect(try await fixture.queue.job(enqueued[oldest]).attempt == 1)
            }
        }

        @Test func aJobNeedingTwoCategoriesRunsDespiteSteadyTrafficOnEach() async throws {
            try await withFixture { fixture in
                try fixture.startWorker(concurrency: 4, starvationLimit: Self.limit)
                let lanes: [(label: String, options: DurableJobOptions)] = [
                    ("a", DurableJobOptions(exclusiveCategories: ["A"])),
                    ("b", DurableJobOptions(exclusiveCategories: ["B"])),
                ]
                _ = try await Self.occupy(lanes, fixture)
                // Of a lower priority than the 40 jobs on A and 40 on B behind it (6 s of work on each), so that
                // whenever A or B is released a competitor waiting for it goes first (without a bound, every time).
                let id = try await Self.enqueue(
                    "both", options: DurableJobOptions(priority: -10, exclusiveCategories: ["A", "B"]), before: 40,
                    competitors: lanes, sleepMilliseconds: 150, fixture)
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                let (overtook, passed) = try await Self.younger(than: id, fixture)
                #expect(passed > 0, "younger jobs were still waiting for its categories when it started")
                let story = overtook == 0 ? "" : try await Self.story(of: id, fixture)
                #expect(overtook == 0, "no younger job started once it had waited out the limit: \(story)")
            }
        }

        @Test func aLowPriorityJobRunsDespiteSteadyHigherPriorityTraffic() async throws {
            try await withFixture { fixture in
                try fixture.startWorker(concurrency: 1, starvationLimit: Self.limit)
                let high: [(label: String, options: DurableJobOptions)] = [("high", DurableJobOptions(priority: 10))]
                _ = try await Self.occupy(high, fixture)
                // 100 jobs of a higher priority behind it, 30 ms each, on the worker's one slot (3 s of work).
                let id = try await Self.enqueue(
                    "low", options: DurableJobOptions(priority: -10), before: 100, competitors: high,
                    sleepMilliseconds: 30, fixture)
                let job = try await fixture.waitUntilFinished(id)
                #expect(job.state == .completed)
                let (overtook, passed) = try await Self.younger(than: id, fixture)
                #expect(passed > 0, "younger jobs of higher priority were still waiting when it started")
                #expect(overtook == 0, "no younger job started once it had waited out the limit")
            }
        }
    }

#endif
