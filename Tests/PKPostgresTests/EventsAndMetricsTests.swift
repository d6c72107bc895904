#if Postgres
    import Foundation
    import PKCore
    @testable import PKPostgres
    import PKTesting
    import Testing

    /// Job events in process (``DurableQueue/events(bufferingNewest:)``), worker metrics (``DurableWorker/metrics``)
    /// and their Prometheus text (``PrometheusExposition``).
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"), .serialized)
    struct EventsAndMetricsTests {
        private struct Planned: Error {}

        // MARK: - Events

        @Test func everyTransitionAWorkerRecordsIsPublishedInOrder() async throws {
            try await withFixture { fixture in
                let log = EventLog(fixture.queue.events())
                let twice = DurableJobOptions(retry: DurableRetryPolicy(maxAttempts: 2, wait: .immediate))
                let once = DurableJobOptions(retry: .never)
                var retried = fixture.input("retried")
                retried.failingAttempts = 1
                var failing = fixture.input("failing")
                failing.failingAttempts = 1
                var snoozing = fixture.input("snoozing")
                snoozing.snoozingRuns = 1
                var discarding = fixture.input("discarding")
                discarding.control = "discard"
                var cancelling = fixture.input("cancelling")
                cancelling.control = "cancel"
                var requested = fixture.input("requested")
                requested.runsUntilCancelled = true
                let ids = [
                    try await fixture.queue.enqueue(TestJob.self, input: fixture.input("plain")),
                    try await fixture.queue.enqueue(TestJob.self, input: retried, options: twice),
                    try await fixture.queue.enqueue(TestJob.self, input: failing, options: once),
                    try await fixture.queue.enqueue(TestJob.self, input: snoozing),
                    try await fixture.queue.enqueue(TestJob.self, input: discarding, options: twice),
                    try await fixture.queue.enqueue(TestJob.self, input: cancelling),
                    try await fixture.queue.enqueue(TestJob.self, input: requested),
                ]
                let worker = try fixture.startWorker(concurrency: 4)
                try await eventually("the long job to start") { fixture.probe.hasStarted("requested") }
                _ = try await fixture.queue.cancel(ids[6])
                for id in ids { _ = try await fixture.waitUntilFinished(id) }
                let expected: [[DurableJobEvent.Kind]] = [
                    [.inserted, .started, .completed],
                    [.inserted, .started, .retried, .started, .completed],
                    [.inserted, .started, .failed],
                    [.inserted, .started, .snoozed, .started, .completed],
                    [.inserted, .started, .discarded],
                    [.inserted, .started, .cancelled],
                    [.inserted, .started, .cancelled],
                ]
                try await eventually("every outcome's event") { ids.map { log.kinds(of: $0) } == expected }
                let retries = log.events(of: ids[1])
                #expect(retries.map(\.attempt) == [0, 1, 1, 2, 2])
                #expect(retries.map(\.worker) == [nil, worker.name, worker.name, worker.name, worker.name])
                #expect(retries.allSatisfy { $0.jobKind == TestJob.kind && $0.queue == "default" })
                #expect(retries[2].error?.contains("planned failure of retried on attempt 1") == true)
                #expect(log.events(of: ids[2]).last?.error?.contains("planned failure of failing") == true)
                #expect(log.events(of: ids[4]).last?.error?.contains("discarded") == true)
                #expect(log.events(of: ids[6]).last?.error == "cancelled by request")
                #expect(log.all.count == expected.joined().count)
            }
        }

        @Test func enqueuesPublishInsertedOnceTheirTransactionCommits() async throws {
            try await withFixture { fixture in
                let log = EventLog(fixture.queue.events())
                let queue = fixture.queue
                let batch = try await queue.enqueue(
                    TestJob.self, inputs: [fixture.input("a"), fixture.input("b"), fixture.input("c")],
                    options: DurableJobOptions(queue: "bulk"))
                let graph = DurableGraph()
                let first = graph.add(TestJob.self, input: fixture.input("first"))
                graph.add(TestJob.self, input: fixture.input("second"), after: [first])
                let enqueuedGraph = try await queue.enqueue(graph)
                // A transaction rolled back, and a savepoint rolled back inside one that commits.
                let rolledBack = PKMutex<[JobID]>([])
                await #expect(throws: Planned.self) {
                    try await queue.withTransaction { connection in
                        let id = try queue.enqueue(TestJob.self, input: fixture.input("undone"), in: connection)
                        rolledBack.withLock { $0.append(id) }
                        throw Planned()
                    }
                }
                let (kept, keyed) = try await queue.withTransaction { connection in
                    do {
                        try connection.transaction { savepoint in
                            let id = try queue.enqueue(TestJob.self, input: fixture.input("undone"), in: savepoint)
                            rolledBack.withLock { $0.append(id) }
                            throw Planned()
                        }
                    } catch is Planned {}
                    let kept = try queue.enqueue(TestJob.self, input: fixture.input("kept"), in: connection)
                    // A unique key taken twice in one transaction (each enqueue in a savepoint of its own).
                    let key = DurableJobOptions(uniqueKey: "in-transaction")
                    let keyed = try queue.enqueue(
                        TestJob.self, input: fixture.input("keyed"), options: key, in: connection)
                    _ = try queue.enqueue(TestJob.self, input: fixture.input("keyed"), options: key, in: connection)
                    return (kept, keyed)
                }
                // A unique key: the second enqueue names the first job, and publishes nothing.
                let unique = DurableJobOptions(uniqueKey: "only-once")
                let single = try await queue.enqueue(TestJob.self, input: fixture.input("unique"), options: unique)
                #expect(try await queue.enqueue(TestJob.self, input: fixture.input("again"), options: unique) == single)
                let last = try await queue.enqueue(TestJob.self, input: fixture.input("last"))

                let expected = batch + enqueuedGraph.jobs + [kept, keyed, single, last]
                try await eventually("the last enqueue's event") { log.all.contains { $0.job == last } }
                #expect(log.all.map(\.job) == expected)
                #expect(log.all.allSatisfy { $0.kind == .inserted && $0.attempt == 0 && $0.worker == nil })
                #expect(log.all.prefix(3).allSatisfy { $0.queue == "bulk" && $0.jobKind == TestJob.kind })
                #expect(rolledBack.withLock { $0 }.count == 2)
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == expected.count)
            }
        }

        @Test func aPeriodicJobsPeriodIsPublishedByTheWorkerThatEnqueuedIt() async throws {
            try await withFixture { fixture in
                let log = EventLog(fixture.queue.events())
                let yearly = try DurablePeriodicJob(
                    name: "yearly", schedule: .cron("0 0 1 1 *"), TestJob.self, input: fixture.input("yearly"),
                    runOnStart: true)
                let worker = try fixture.startWorker(periodicJobs: [yearly])
                try await eventually("the period's job to complete") { log.all.contains { $0.kind == .completed } }
                let events = log.all
                // The maintenance thread publishes `inserted` after its commit; by then a worker thread may have
                // claimed the job and published `started`: across threads, the order is not promised.
                #expect(events.map(\.kind).sorted { $0.rawValue < $1.rawValue } == [.completed, .inserted, .started])
                #expect(events.last?.kind == .completed)
                #expect(events.allSatisfy { $0.worker == worker.name && $0.job == events[0].job })
            }
        }

        @Test func anOutcomeWhoseLeaseWasLostIsNotPublished() async throws {
            try await withFixture { fixture in
                let log = EventLog(fixture.queue.events())
                var input = fixture.input("taken")
                input.runsUntilCancelled = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker()
                try await eventually("the job to start") { fixture.probe.hasStarted("taken") }
                try await fixture.stealLease(of: id)
                try await eventually("the worker to give the job up") { worker.statistics.leasesLost == 1 }
                // The lease expires, the reaper requeues the job (which publishes nothing), and it runs again.
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(id).state == .completed)
                try await eventually("the completion's event") { log.kinds(of: id).last == .completed }
                #expect(log.kinds(of: id) == [.inserted, .started, .started, .completed])
                #expect(log.events(of: id).map(\.attempt) == [0, 1, 2, 2])
            }
        }

        @Test func aSubscriberThatStopsListeningIsForgotten() async throws {
            try await withFixture { fixture in
                let hub = fixture.queue.eventHub
                // Its task cancelled.
                let cancelled = EventLog(fixture.queue.events())
                #expect(hub.subscriberCount == 1)
                cancelled.stop()
                try await eventually("the cancelled stream to be forgotten") { hub.subscriberCount == 0 }

                // Released after a `break`, its subscription with it.
                let leaks = LeakCheck()
                let reader = Task { [queue = fixture.queue] in
                    let events = queue.events()
                    leaks.track(events.subscription, name: "the subscription of a stream left with break")
                    for await _ in events { break }
                }
                try await eventually("the reader to listen") { hub.subscriberCount == 1 }
                _ = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("wake"))
                await reader.value
                try await eventually("the abandoned stream to be released") {
                    leaks.alive.isEmpty && hub.subscriberCount == 0
                }

                // A stream the consumer stopped reading drops its oldest events beyond its limit.
                let small = fixture.queue.events(bufferingNewest: 2)
                _ = try await fixture.queue.enqueue(
                    TestJob.self, inputs: (0..<5).map { fixture.input("n\($0)") })
                #expect(small.droppedCount == 3)
                var iterator = small.makeAsyncIterator()
                #expect(await iterator.next()?.kind == .inserted)
            }
        }

        @Test func aQueuesStreamsEndWhenTheQueueIsReleased() async throws {
            try await withFixture { fixture in
                weak var released: DurableQueue?
                var events: DurableJobEvents?
                do {
                    let queue = try fixture.makeQueue()
                    released = queue
                    events = queue.events()
                }
                try await eventually("the queue to be released") { released == nil }
                var iterator = try #require(events).makeAsyncIterator()
                #expect(await iterator.next() == nil)
            }
        }

        // MARK: - Metrics

        @Test func workerMetricsCountClaimsHeartbeatsAndLeaseRenewals() async throws {
            try await withFixture { fixture in
                var input = fixture.input("long")
                input.runsUntilCancelled = true
                let id = try await fixture.queue.enqueue(TestJob.self, input: input)
                let worker = try fixture.startWorker(concurrency: 3)
                #expect(worker.metrics.slots == 3)
                try await eventually("the job to start") { fixture.probe.hasStarted("long") }
                #expect(worker.metrics.runningJobs == 1)
                // A heartbeat every third of the 2 s lease renews the job's lease.
                try await eventually("two lease renewals") { worker.metrics.leaseRenewals >= 2 }
                fixture.probe.releaseWaitingJobs()
                #expect(try await fixture.waitUntilFinished(id).state == .completed)
                try await eventually("the slot to be free") { worker.metrics.runningJobs == 0 }
                let metrics = worker.metrics
                #expect(metrics.worker == worker.name)
                #expect(metrics.statistics.claimed == 1)
                #expect(metrics.statistics.completed == 1)
                #expect(metrics.heartbeats >= 2)
                #expect(metrics.leaseRenewals >= metrics.heartbeats)
                #expect(metrics.claimStatements >= 1)
                #expect(metrics.claimDuration.count == metrics.claimStatements)
                #expect(metrics.claimDuration.sum > 0)
                #expect(metrics.claimDuration.max <= metrics.claimDuration.sum)
                let cumulative = metrics.claimDuration.cumulativeCounts
                #expect(cumulative == cumulative.sorted())
                #expect((cumulative.last ?? 0) <= metrics.claimDuration.count)
            }
        }

        @Test func aHistogramPutsEachDurationInTheFirstBucketThatHoldsIt() {
            var histogram = DurableLatencyHistogram()
            for seconds in [0.0001, 0.0005, 0.003, 0.003, 7, 60, -1] { histogram.record(seconds) }
            #expect(histogram.count == 7)
            #expect(histogram.max == 60)
            #expect(abs(histogram.sum - 67.0066) < 1e-9)
            let bounds = DurableLatencyHistogram.standardUpperBounds
            let counts = Dictionary(uniqueKeysWithValues: zip(bounds, histogram.cumulativeCounts))
            #expect(counts[0.000_5] == 3)
            #expect(counts[0.002_5] == 3)
            #expect(counts[0.005] == 5)
            #expect(counts[5] == 5)
            #expect(counts[10] == 6)
        }

        // MARK: - Prometheus

        @Test func thePrometheusTextFollowsTheExpositionFormat() async throws {
            try await withFixture { fixture in
                _ = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done"))
                _ = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("later"),
                    options: DurableJobOptions(runAt: Date().addingTimeInterval(3_600), queue: "later"))
                try await fixture.queue.pause(queue: "later")
                let worker = try fixture.startWorker()
                try await eventually("the job to complete") { worker.statistics.completed == 1 }
                // Never started: only its name matters, which needs escaping.
                let odd = try DurableWorker(queue: fixture.queue, name: "odd \"name\" \\ with\nline")
                let text = PrometheusExposition.text(
                    workers: [worker.metrics, odd.metrics], queueStatistics: try await fixture.queue.queueStatistics())

                let exposition = try PrometheusText(text)
                #expect(exposition.value("procedurekit_jobs", ["queue": "default", "state": "completed"]) == 1)
                #expect(exposition.value("procedurekit_jobs", ["queue": "later", "state": "available"]) == 1)
                #expect(exposition.value("procedurekit_jobs", ["queue": "later", "state": "failed"]) == 0)
                #expect(exposition.value("procedurekit_queue_paused", ["queue": "later"]) == 1)
                #expect(exposition.value("procedurekit_queue_paused", ["queue": "default"]) == 0)
                #expect(exposition.value("procedurekit_worker_claimed_total", ["worker": worker.name]) == 1)
                #expect(exposition.value("procedurekit_worker_completed_total", ["worker": worker.name]) == 1)
                #expect(exposition.value("procedurekit_worker_slots", ["worker": odd.name]) == 4)
                #expect(exposition.types["procedurekit_worker_claim_duration_seconds"] == "histogram")
                #expect(exposition.types["procedurekit_worker_lease_renewals_total"] == "counter")
                #expect(exposition.types["procedurekit_worker_running_jobs"] == "gauge")
                let claims = try #require(
                    exposition.value("procedurekit_worker_claim_duration_seconds_count", ["worker": worker.name]))
                #expect(claims >= 1)
                #expect(exposition.histogramCounts("procedurekit_worker_claim_duration_seconds")[worker.name] == claims)
                #expect(exposition.histogramCounts("procedurekit_worker_claim_duration_seconds")[odd.name] == 0)
            }
        }

        @Test(arguments: [
            ("plain", "plain"), ("a\"b", "a\\\"b"), ("back\\slash", "back\\\\slash"), ("two\nlines", "two\\nlines"),
        ])
        func labelValuesAreEscaped(value: String, escaped: String) throws {
            #expect(PrometheusExposition.escapedLabelValue(value) == escaped)
            #expect(try PrometheusText.unescaped(escaped) == value)
        }
    }

    /// A small reader of the Prometheus text format (0.0.4) that checks what it reads: `# HELP` and `# TYPE` once per
    /// family and before its samples, each family's samples together, names and label names well formed, label values
    /// escaped, values numbers; for each histogram, buckets in ascending `le` with counts that never decrease, and a
    /// `+Inf` bucket equal to `_count`.
    private struct PrometheusText {
        struct Malformed: Error, CustomStringConvertible {
            let line: String
            let why: String
            var description: String { "\(why): \(line)" }
        }

        struct Sample {
            let name: String
            let labels: [String: String]
            let value: Double
        }

        private(set) var types: [String: String] = [:]
        private(set) var samples: [Sample] = []

        init(_ text: String) throws {
            guard text.hasSuffix("\n") else { throw Malformed(line: "", why: "the text does not end with a line feed") }
            var helped = Set<String>()
            var finished = Set<String>()
            var current: String?
            for line in text.dropLast().split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
                if line.hasPrefix("# HELP ") || line.hasPrefix("# TYPE ") {
                    let parts = line.split(separator: " ", maxSplits: 3).map(String.init)
                    guard parts.count == 4, Self.isMetricName(parts[2]) else {
                        throw Malformed(line: line, why: "a comment without a name and a text")
                    }
                    let family = parts[2]
                    if family != current {
                        if let current { finished.insert(current) }
                        guard !finished.contains(family) else { throw Malformed(line: line, why: "a family again") }
                        current = family
                    }
                    if parts[1] == "HELP" {
                        guard helped.insert(family).inserted else { throw Malformed(line: line, why: "HELP twice") }
                        guard !parts[3].contains("\n"), Self.escapesAreValid(parts[3]) else {
                            throw Malformed(line: line, why: "a bad escape in HELP")
                        }
                    } else {
                        guard types[family] == nil, samples.allSatisfy({ Self.family(of: $0.name) != family }) else {
                            throw Malformed(line: line, why: "TYPE twice or after samples")
                        }
                        guard ["counter", "gauge", "histogram", "summary", "untyped"].contains(parts[3]) else {
                            throw Malformed(line: line, why: "an unknown type")
                        }
                        types[family] = parts[3]
                    }
                    continue
                }
                guard !line.hasPrefix("#"), !line.isEmpty else { throw Malformed(line: line, why: "a stray line") }
                let sample = try Self.sample(line)
                let family = types[sample.name] != nil ? sample.name : Self.family(of: sample.name)
                guard family == current, types[family] != nil, helped.contains(family) else {
                    throw Malformed(line: line, why: "a sample outside its family, or without HELP and TYPE")
                }
                if sample.name != family, types[family] != "histogram" {
                    throw Malformed(line: line, why: "a suffix on a sample that is not a histogram's")
                }
                samples.append(sample)
            }
            try checkHistograms()
        }

        /// The value of the sample `name` with exactly `labels`.
        func value(_ name: String, _ labels: [String: String]) -> Double? {
            samples.first { $0.name == name && $0.labels == labels }?.value
        }

        /// Each worker's `_count` of the histogram `name`.
        func histogramCounts(_ name: String) -> [String: Double] {
            var counts: [String: Double] = [:]
            for sample in samples where sample.name == name + "_count" {
                counts[sample.labels["worker"] ?? ""] = sample.value
            }
            return counts
        }

        private func checkHistograms() throws {
            for (family, type) in types where type == "histogram" {
                var series: [[String: String]: [(le: Double, count: Double)]] = [:]
                for sample in samples where sample.name == family + "_bucket" {
                    guard let le = sample.labels["le"], let bound = Self.number(le) else {
                        throw Malformed(line: sample.name, why: "a bucket without a numeric le")
                    }
                    var labels = sample.labels
                    labels["le"] = nil
                    series[labels, default: []].append((bound, sample.value))
                }
                guard !series.isEmpty else { throw Malformed(line: family, why: "a histogram without buckets") }
                for (labels, buckets) in series {
                    guard buckets.map(\.le) == buckets.map(\.le).sorted(), Set(buckets.map(\.le)).count == buckets.count
                    else { throw Malformed(line: family, why: "buckets out of order") }
                    guard buckets.map(\.count) == buckets.map(\.count).sorted() else {
                        throw Malformed(line: family, why: "bucket counts that decrease")
                    }
                    guard buckets.last?.le == .infinity, let count = value(family + "_count", labels),
                        value(family + "_sum", labels) != nil, buckets.last?.count == count
                    else { throw Malformed(line: family, why: "no +Inf bucket equal to _count, or no _sum") }
                }
            }
        }

        private static func family(of name: String) -> String {
            for suffix in ["_bucket", "_sum", "_count"] where name.hasSuffix(suffix) {
                return String(name.dropLast(suffix.count))
            }
            return name
        }

        private static func isMetricName(_ name: String) -> Bool {
            name.wholeMatch(of: /[a-zA-Z_:][a-zA-Z0-9_:]*/) != nil
        }

        private static func number(_ text: String) -> Double? {
            switch text {
            case "+Inf": .infinity
            case "-Inf": -.infinity
            case "NaN": .nan
            default: Double(text)
            }
        }

        /// One sample line: `name{label="value",...} value`.
        private static func sample(_ line: String) throws -> Sample {
            var rest = Substring(line)
            let name = String(rest.prefix { $0.isLetter || $0.isNumber || $0 == "_" || $0 == ":" })
            guard isMetricName(name) else { throw Malformed(line: line, why: "a bad metric name") }
            rest = rest.dropFirst(name.count)
            var labels: [String: String] = [:]
            if rest.first == "{" {
                rest = rest.dropFirst()
                while rest.first != "}" {
                    let label = String(rest.prefix { $0 != "=" })
                    guard label.wholeMatch(of: /[a-zA-Z_][a-zA-Z0-9_]*/) != nil, labels[label] == nil else {
                        throw Malformed(line: line, why: "a bad or repeated label name")
                    }
                    rest = rest.dropFirst(label.count)
                    guard rest.hasPrefix("=\"") else { throw Malformed(line: line, why: "a label without a value") }
                    rest = rest.dropFirst(2)
                    var raw = ""
                    while let character = rest.first, character != "\"" {
                        raw.append(character)
                        rest = rest.dropFirst()
                        if character == "\\", let escaped = rest.first {
                            raw.append(escaped)
                            rest = rest.dropFirst()
                        }
                    }
                    guard rest.first == "\"" else { throw Malformed(line: line, why: "an unterminated label value") }
                    rest = rest.dropFirst()
                    labels[label] = try unescaped(raw)
                    if rest.first == "," {
                        rest = rest.dropFirst()
                    } else if rest.first != "}" {
                        throw Malformed(line: line, why: "labels not separated by commas")
                    }
                }
                rest = rest.dropFirst()
            }
            guard rest.first == " ", let value = number(String(rest.dropFirst())) else {
                throw Malformed(line: line, why: "no value after one space")
            }
            return Sample(name: name, labels: labels, value: value)
        }

        /// A label value read back: `\\`, `\"` and `\n` are its only escapes.
        static func unescaped(_ raw: String) throws -> String {
            var value = ""
            var escaping = false
            for character in raw {
                if escaping {
                    switch character {
                    case "\\": value.append("\\")
                    case "\"": value.append("\"")
                    case "n": value.append("\n")
                    default: throw Malformed(line: raw, why: "an unknown escape")
                    }
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                } else if character == "\n" || character == "\"" {
                    throw Malformed(line: raw, why: "an unescaped line feed or quote")
                } else {
                    value.append(character)
                }
            }
            guard !escaping else { throw Malformed(line: raw, why: "a dangling backslash") }
            return value
        }

        private static func escapesAreValid(_ text: String) -> Bool {
            var escaping = false
            for character in text {
                if escaping {
                    guard character == "\\" || character == "n" else { return false }
                    escaping = false
                } else if character == "\\" {
                    escaping = true
                }
            }
            return !escaping
        }
    }
#endif
