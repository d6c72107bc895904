import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

struct RepeatProcedureTests {

    let queue = ProcedureQueue()
    let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 10_000))

    @Test func maxTwoRunsTheBlockExactlyTwice() {
        // BEHAVIOUR §13.48
        let runs = Atomic(0)
        let repeated = RepeatProcedure(max: 2) { BlockProcedure { runs.add(1, ordering: .relaxed) } }
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(runs.load(ordering: .relaxed) == 2)
        #expect(repeated.count == 2)
        PKExpectProcedureFinished(repeated)
    }

    @Test func itStopsWhenTheBodyReturnsNil() {
        let made = Atomic(0)
        let repeated = RepeatProcedure { () -> TestProcedure? in
            made.add(1, ordering: .relaxed).newValue <= 3 ? TestProcedure() : nil
        }
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(repeated.count == 3)
        #expect(repeated.current?.didExecute == true)
        #expect(repeated.previous?.didExecute == true)
        PKExpectProcedureFinished(repeated)
    }

    @Test func itRunsTheOperationsOfAnIteratorInOrder() {
        let order = PKMutex<[Int]>([])
        let operations = (0..<4).map { index in BlockProcedure { order.withLock { $0.append(index) } } }
        let repeated = RepeatProcedure(iterator: operations.makeIterator())
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(order.withLock { $0 } == [0, 1, 2, 3])
        #expect(repeated.count == 4)
    }

    @Test(arguments: [1, 3, 7])
    func maxCountsEveryAttemptTheFirstIncluded(max: Int) {
        let runs = Atomic(0)
        let repeated = RepeatProcedure(max: max) { BlockProcedure { runs.add(1, ordering: .relaxed) } }
        #expect(repeated.count == 1)
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(runs.load(ordering: .relaxed) == max)
        #expect(repeated.count == max)
    }

    @Test func aFailingFirstChildAndASucceedingSecondFinishWithTheFirstError() {
        // BEHAVIOUR §13.49
        let error = TestError()
        let attempts = [TestProcedure(name: "Fails", error: error), TestProcedure(name: "Succeeds")]
        let repeated = RepeatProcedure(max: 2, iterator: attempts.makeIterator())
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(repeated.count == 2)
        #expect(attempts.allSatisfy { $0.didExecute })
        PKExpectProcedureFinishedWithErrors(repeated, count: 1)
        PKExpectProcedureError(repeated, equals: error)
    }

    @Test func itKeepsGoingThroughErrorsAndCollectsThemAll() {
        let errors = [TestError(), TestError(), TestError()]
        let repeated = RepeatProcedure(iterator: errors.map { TestProcedure(error: $0) }.makeIterator())
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(repeated.count == 3)
        PKExpectProcedureFinishedWithErrors(repeated, count: 3)
        #expect(repeated.errors.compactMap { $0 as? TestError } == errors)
    }

    @Test func itWaitsBetweenAttemptsOnItsClock() {
        let repeated = RepeatProcedure(max: 3, wait: .constant(5), clock: clock) { TestProcedure() }
        queue.add(procedure: repeated)
        for attempt in 2...3 {
            #expect(clock.waitForScheduledActions(count: 1))
            #expect(repeated.count == attempt)
            #expect(repeated.current?.didExecute == false)
            #expect(clock.nextDeadline == clock.now.addingTimeInterval(5))
            clock.advance(by: 5)
        }
        waitForAll(repeated)
        #expect(repeated.current?.didExecute == true)
        #expect(clock.totalScheduledActionCount == 2)
        PKExpectProcedureFinished(repeated)
    }

    @Test func theWaitBeforeAttemptKIsTheStrategysValueK() {
        // The first value goes with the first attempt, which starts at once.
        let repeated = RepeatProcedure(
            max: 4, wait: .exponential(power: 2, period: 1, maximum: 20), clock: clock
        ) { TestProcedure() }
        queue.add(procedure: repeated)
        for expected in [2.0, 4.0, 8.0] {
            #expect(clock.waitForScheduledActions(count: 1))
            #expect(clock.nextDeadline == clock.now.addingTimeInterval(expected))
            clock.advanceToNextAction()
        }
        waitForAll(repeated)
        #expect(repeated.count == 4)
        PKExpectProcedureFinished(repeated)
    }

    @Test func aDelayIteratorSetsEachWait() {
        let delays: [Delay] = [.by(100), .by(3), .until(clock.now.addingTimeInterval(50))]
        let operations = (0..<3).map { _ in TestProcedure() }
        let repeated = RepeatProcedure(delay: delays.makeIterator(), clock: clock, iterator: operations.makeIterator())
        queue.add(procedure: repeated)
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(3))
        clock.advanceToNextAction()
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == Date(timeIntervalSinceReferenceDate: 10_050))
        clock.advanceToNextAction()
        waitForAll(repeated)
        #expect(operations.allSatisfy { $0.didExecute })
    }

    @Test func payloadConfigureBlocksConfigureTheirOperationAndTheOnesAfter() {
        let payloads = [
            RepeatProcedurePayload(operation: TestProcedure(), configure: { $0.name = "A" }),
            RepeatProcedurePayload(operation: TestProcedure()),
            RepeatProcedurePayload(operation: TestProcedure(), configure: { $0.name = "B" }),
            RepeatProcedurePayload(operation: TestProcedure()),
        ]
        let repeated = RepeatProcedure<TestProcedure>(iterator: payloads.makeIterator())
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(payloads.map { $0.operation.name } == ["A", "A", "B", "B"])
    }

    @Test func appendedConfigureBlocksRunInOrderAndReplaceStartsAfresh() {
        let trail = PKMutex<[String]>([])
        let made = Atomic(0)
        let repeated = RepeatProcedure(max: 3) { () -> TestProcedure in
            TestProcedure(name: "\(made.add(1, ordering: .relaxed).newValue)")
        }
        repeated.appendConfigureBlock { op in trail.withLock { $0.append("first \(op.procedureName)") } }
        repeated.appendConfigureBlock { op in trail.withLock { $0.append("second \(op.procedureName)") } }
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(trail.withLock { $0 } == ["first 1", "second 1", "first 2", "second 2", "first 3", "second 3"])

        let replaced = PKMutex<[String]>([])
        let other = RepeatProcedure(max: 2) { TestProcedure() }
        other.appendConfigureBlock { _ in replaced.withLock { $0.append("old") } }
        other.replaceConfigureBlock { _ in replaced.withLock { $0.append("new") } }
        queue.add(procedure: other)
        waitForAll(other)
        #expect(replaced.withLock { $0 } == ["new", "new"])
    }

    @Test func plainOperationsAreRepeatedToo() {
        let runs = Atomic(0)
        let repeated = RepeatProcedure(max: 3) { BlockOperation { runs.add(1, ordering: .relaxed) } }
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(runs.load(ordering: .relaxed) == 3)
        #expect(repeated.count == 3)
        PKExpectProcedureFinished(repeated)
    }

    @Test func anEmptyIteratorOrMaxZeroFinishesAtOnce() {
        let empty = RepeatProcedure<TestProcedure> { nil }
        let zero = RepeatProcedure(max: 0) { TestProcedure() }
        queue.add(procedures: empty, zero)
        waitForAll(empty, zero)
        #expect(empty.count == 0)
        #expect(zero.count == 0)
        #expect(empty.current == nil)
        PKExpectProcedureFinished(empty)
        PKExpectProcedureFinished(zero)
    }

    @Test func cancelledBeforeItExecutesNoAttemptRuns() {
        let runs = Atomic(0)
        let repeated = RepeatProcedure(max: 3) { BlockProcedure { runs.add(1, ordering: .relaxed) } }
        repeated.cancel()
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(runs.load(ordering: .relaxed) == 0)
        PKExpectProcedureCancelled(repeated)
    }

    @Test func cancelledDuringAWaitItFinishesPromptlyCancelled() {
        let repeated = RepeatProcedure(max: 5, wait: .constant(10), clock: clock) { TestProcedure() }
        queue.add(procedure: repeated)
        #expect(clock.waitForScheduledActions(count: 1))
        repeated.cancel()
        waitForAll(repeated)
        PKExpectProcedureCancelled(repeated)
        #expect(repeated.count == 2)
        #expect(repeated.current?.didExecute == false)
        #expect(repeated.current?.isCancelled == true)
        #expect(clock.scheduledActionCount == 0)
    }

    @Test func cancelledDuringAnAttemptItCancelsTheAttemptAndTakesNoMore() {
        let repeated = RepeatProcedure(max: 5) { DelayProcedure(by: 100, clock: clock) }
        queue.add(procedure: repeated)
        #expect(clock.waitForScheduledActions(count: 1))
        let attempt = repeated.current
        repeated.cancel(with: TestError())
        waitForAll(repeated)
        PKExpectProcedureCancelled(repeated, withErrors: true)
        #expect(repeated.count == 1)
        #expect(attempt?.isCancelled == true)
        #expect(clock.scheduledActionCount == 0)
    }

    @Test func finishedAndCancelledRepeatsAndTheirAttemptsAreReleased() async {
        let leaks = LeakCheck()
        do {
            let finished = RepeatProcedure(max: 3, wait: .constant(1), clock: clock) { () -> TestProcedure in
                let attempt = TestProcedure()
                leaks.track(attempt)
                return attempt
            }
            let cancelled = RepeatProcedure(max: 3, wait: .constant(1), clock: clock) { () -> TestProcedure in
                let attempt = TestProcedure()
                leaks.track(attempt)
                return attempt
            }
            leaks.track([finished, cancelled])
            queue.add(procedure: finished)
            for _ in 0..<2 {
                #expect(await clock.waitForScheduledActions(count: 1))
                clock.advance(by: 1)
            }
            queue.add(procedure: cancelled)
            #expect(await clock.waitForScheduledActions(count: 1))
            cancelled.cancel()
            #expect(await waitForFinish([finished, cancelled], timeout: hangTimeout))
        }
        #expect(clock.scheduledActionCount == 0)
        await PKExpectReleased(leaks)
    }

    @Test func anAttemptsDeinitMayReadTheRepeatItBelongedTo() {
        // The attempt before last loses its last reference as the next one is added: its deinit (user code) runs
        // after the repeat's lock is released, so reading the repeat's state from it does not deadlock.
        let holder = RepeatHolder()
        let readsInDeinit = Atomic(0)
        let repeated = RepeatProcedure(max: 5) { () -> DeinitProbe in
            DeinitProbe {
                _ = holder.repeated?.count
                _ = holder.repeated?.current
                readsInDeinit.add(1, ordering: .relaxed)
            }
        }
        holder.repeated = repeated
        queue.add(procedure: repeated)
        waitForAll(repeated)
        #expect(repeated.count == 5)
        // Attempts 1–3 were released while the repeat was running (two are still current and previous).
        #expect(readsInDeinit.load(ordering: .relaxed) >= 3)
        PKExpectProcedureFinished(repeated)
    }
}

/// Holds the repeat weakly for its attempts' deinits to read.
private final class RepeatHolder: Sendable {
    private struct Weak { weak var value: RepeatProcedure<DeinitProbe>? }
    private let box = Mutex(Weak())

    var repeated: RepeatProcedure<DeinitProbe>? {
        get { box.withLock { $0.value } }
        set { box.withLock { $0.value = newValue } }
    }
}

/// An attempt that runs `onDeinit` as it is deallocated.
private final class DeinitProbe: Procedure, @unchecked Sendable {
    // @unchecked Sendable: its one field is an immutable @Sendable closure; the superclass's state is guarded by
    // the procedure's `storage` mutex.
    private let onDeinit: @Sendable () -> Void

    init(onDeinit: @escaping @Sendable () -> Void) {
        self.onDeinit = onDeinit
        super.init()
    }

    override func execute() { finish() }

    deinit { onDeinit() }
}
