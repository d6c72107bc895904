#if Postgres
    import Foundation
    import PKPostgres
    import Testing

    /// Uniqueness modes (``DurableUniqueness``): by kind, input, queue and period, among chosen states; and the
    /// global ``DurableJobOptions/uniqueKey`` beside them.
    @Suite(.enabled(if: TestDatabase.isAvailable, "set PK_POSTGRES_URL (Scripts/test.sh does)"))
    struct UniquenessTests {

        @Test func aDuplicateByInputReturnsTheFirstJobAndAnotherInputMakesANewOne() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(unique: DurableUniqueness(byInput: true))
                let first = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("report", value: 1), options: options)
                let again = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("report", value: 1), options: options)
                let other = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("report", value: 2), options: options)
                #expect(again == first)
                #expect(other != first)
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == 2)
            }
        }

        @Test func withoutByInputOneUnfinishedJobOfTheKindIsAllowed() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(unique: DurableUniqueness())
                let first = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("a"), options: options)
                let second = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("b"), options: options)
                #expect(second == first)
                // Another kind is not a duplicate.
                let relay = try await fixture.queue.enqueue(
                    Relay.self, input: TestOutput(probe: fixture.probe.name, label: "r", value: 1, attempt: 0),
                    options: options)
                #expect(relay != first)
            }
        }

        @Test func aCompletedJobStaysADuplicateByDefaultButAFailedOneDoesNot() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(retry: .never, unique: DurableUniqueness(byInput: true))
                let done = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done"), options: options)
                var failing = fixture.input("failing")
                failing.failingAttempts = 1
                let failed = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(done).state == .completed)
                #expect(try await fixture.waitUntilFinished(failed).state == .failed)
                #expect(
                    try await fixture.queue.enqueue(TestJob.self, input: fixture.input("done"), options: options)
                        == done)
                let afresh = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                #expect(afresh != failed)
            }
        }

        @Test func statesWithoutCompletedLetAFinishedJobBeEnqueuedAgain() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(
                    unique: DurableUniqueness(byInput: true, states: [.blocked, .available, .running]))
                let first = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("x"), options: options)
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(first).state == .completed)
                let second = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("x"), options: options)
                #expect(second != first)
                #expect(try await fixture.waitUntilFinished(second).state == .completed)
            }
        }

        @Test func allStatesKeepTheKeyEvenAfterAFailure() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(
                    retry: .never, unique: DurableUniqueness(byInput: true, states: Set(JobState.allCases)))
                var failing = fixture.input("failing")
                failing.failingAttempts = 1
                let failed = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(failed).state == .failed)
                #expect(try await fixture.queue.enqueue(TestJob.self, input: failing, options: options) == failed)
            }
        }

        @Test func byQueueMakesTheSameInputInAnotherQueueADifferentJob() async throws {
            try await withFixture { fixture in
                let input = fixture.input("same")
                let byQueue = DurableUniqueness(byInput: true, byQueue: true)
                let a = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(queue: "a", unique: byQueue))
                let b = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(queue: "b", unique: byQueue))
                #expect(a != b)
                let anyQueue = DurableUniqueness(byInput: true)
                let c = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(queue: "c", unique: anyQueue))
                let d = try await fixture.queue.enqueue(
                    TestJob.self, input: input, options: DurableJobOptions(queue: "d", unique: anyQueue))
                #expect(c == d)
                #expect(c != a)
            }
        }

        @Test func aPeriodMakesJobsStartingInTheSamePeriodDuplicates() async throws {
            try await withFixture { fixture in
                let hour = DurableUniqueness(byInput: true, period: .seconds(3_600))
                // Far enough ahead that no worker would run them; both inside one hour, the third in the next.
                let base = (Date().timeIntervalSince1970 / 3_600).rounded(.down) * 3_600 + 10 * 86_400
                func options(_ offset: TimeInterval) -> DurableJobOptions {
                    DurableJobOptions(runAt: Date(timeIntervalSince1970: base + offset), unique: hour)
                }
                let first = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("p"), options: options(10))
                let same = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("p"), options: options(3_500))
                let next = try await fixture.queue.enqueue(
                    TestJob.self, input: fixture.input("p"), options: options(3_700))
                #expect(same == first)
                #expect(next != first)
            }
        }

        @Test func aUniquenessKeyIsScopedToTheKindButUniqueKeyIsGlobal() async throws {
            try await withFixture { fixture in
                let relayInput = TestOutput(probe: fixture.probe.name, label: "r", value: 1, attempt: 0)
                let keyed = DurableJobOptions(unique: DurableUniqueness(key: "customer-7"))
                let job = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("a"), options: keyed)
                let relay = try await fixture.queue.enqueue(Relay.self, input: relayInput, options: keyed)
                #expect(job != relay)
                let global = DurableJobOptions(uniqueKey: "customer-7")
                let first = try await fixture.queue.enqueue(TestJob.self, input: fixture.input("b"), options: global)
                let second = try await fixture.queue.enqueue(Relay.self, input: relayInput, options: global)
                #expect(second == first)
                #expect(first != job)
            }
        }

        @Test func manyQueuesEnqueueingTheSameJobAtOnceStoreOneJob() async throws {
            try await withFixture { fixture in
                let queues = try (0..<6).map { _ in
                    let queue = try fixture.makeQueue()
                    try queue.register(TestJob.self)
                    return queue
                }
                let input = fixture.input("contended")
                let options = DurableJobOptions(unique: DurableUniqueness(byInput: true))
                for round in 0..<5 {
                    var roundInput = input
                    roundInput.value = round
                    let frozen = roundInput
                    let ids = try await withThrowingTaskGroup(of: JobID.self) { group in
                        for index in 0..<24 {
                            let queue = queues[index % queues.count]
                            group.addTask { try await queue.enqueue(TestJob.self, input: frozen, options: options) }
                        }
                        return try await group.reduce(into: Set<JobID>()) { $0.insert($1) }
                    }
                    #expect(ids.count == 1, "round \(round): \(ids)")
                }
                #expect(try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs") == 5)
            }
        }

        @Test func retryingAFailedJobWhoseKeyAnotherJobHoldsSkipsIt() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(retry: .never, unique: DurableUniqueness(byInput: true))
                var failing = fixture.input("flaky")
                failing.failingAttempts = 1
                let failed = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                let worker = try fixture.startWorker()
                #expect(try await fixture.waitUntilFinished(failed).state == .failed)
                try await fixture.stop(worker)
                // A new job with the same input takes the key the failed one let go.
                let afresh = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                #expect(afresh != failed)
                #expect(try await fixture.queue.retry([failed]).isEmpty)
                #expect(try await fixture.queue.retry(matching: DurableJobFilter(states: [.failed])) == 0)
                #expect(try await fixture.queue.job(failed).state == .failed)
                // Once the new one is cancelled (not a state that keeps the key), the old one can run again.
                _ = try await fixture.queue.cancel(afresh)
                #expect(try await fixture.queue.retry([failed]) == [failed])
                #expect(try await fixture.queue.job(failed).state == .available)
            }
        }

        @Test func retryingSeveralFinishedJobsThatShareAKeyRetriesOnlyTheFirst() async throws {
            try await withFixture { fixture in
                let options = DurableJobOptions(retry: .never, unique: DurableUniqueness(byInput: true))
                var failing = fixture.input("twice")
                failing.failingAttempts = 1
                let first = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                _ = try await fixture.queue.cancel(first)
                let second = try await fixture.queue.enqueue(TestJob.self, input: failing, options: options)
                _ = try await fixture.queue.cancel(second)
                #expect(first != second)
                #expect(try await fixture.queue.retry([second, first]) == [first])
                #expect(try await fixture.queue.job(second).state == .cancelled)
            }
        }

        @Test func badUniquenessIsRefusedWithATypedError() async throws {
            try await withFixture { fixture in
                let bad: [DurableJobOptions] = [
                    DurableJobOptions(unique: DurableUniqueness(states: [.completed])),
                    DurableJobOptions(uniqueKey: "k", unique: DurableUniqueness()),
                    DurableJobOptions(uniqueKey: "\u{1F}kind=test.job"),
                    DurableJobOptions(unique: DurableUniqueness(period: .milliseconds(500))),
                    DurableJobOptions(unique: DurableUniqueness(key: "")),
                ]
                for options in bad {
                    await #expect(throws: DurableError.self) {
                        try await fixture.queue.enqueue(TestJob.self, input: fixture.input("bad"), options: options)
                    }
                }
                await #expect(throws: DurableError.self) {
                    try await fixture.queue.enqueue(
                        TestJob.self, inputs: [fixture.input("batch")],
                        options: DurableJobOptions(unique: DurableUniqueness()))
                }
                let stored = try await fixture.count("SELECT count(*) FROM \(fixture.schema).jobs")
                #expect(stored == 0)
            }
        }
    }
#endif
