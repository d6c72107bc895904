import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

struct RetryProcedureTests {

    let queue = ProcedureQueue()
    let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 20_000))

    /// A body whose attempts finish with `outcomes` in turn (`nil` succeeds), then succeed.
    static func scripted(_ outcomes: [(any Error)?]) -> @Sendable () -> TestProcedure {
        let remaining = PKMutex(outcomes)
        return {
            let error = remaining.withLock { $0.isEmpty ? nil : $0.removeFirst() }
            return TestProcedure(error: error)
        }
    }

    @Test func uptoThreeAlwaysFailingMakesThreeAttemptsAndFinishesWithTheError() {
        // BEHAVIOUR §13.50 (with ProcedureKit's default wait of 0.2 s between attempts, on a manual clock)
        let retry = RetryProcedure(upto: 3, clock: clock) { TestProcedure(error: ProcedureKitError.unknown) }
        queue.add(procedure: retry)
        for _ in 0..<2 {
            #expect(clock.waitForScheduledActions(count: 1))
            #expect(clock.nextDeadline == clock.now.addingTimeInterval(0.2))
            clock.advance(by: 0.2)
        }
        waitForAll(retry)
        #expect(retry.count == 3)
        PKExpectProcedureFinishedWithErrors(retry, count: 1)
        PKExpectProcedureError(retry, equals: ProcedureKitError.unknown)
    }

    @Test func failingTwiceThenSucceedingFinishesWithoutErrors() {
        // BEHAVIOUR §13.51
        let retry = RetryProcedure(max: 5, body: Self.scripted([TestError(), TestError(), nil]))
        queue.add(procedure: retry)
        waitForAll(retry)
        #expect(retry.count == 3)
        PKExpectProcedureFinished(retry)
    }

    @Test func aFirstSuccessMakesNoFurtherAttempt() {
        let made = Atomic(0)
        let retry = RetryProcedure(max: 5) { () -> TestProcedure in
            made.add(1, ordering: .relaxed)
            return TestProcedure()
        }
        queue.add(procedure: retry)
        waitForAll(retry)
        #expect(retry.count == 1)
        #expect(made.load(ordering: .relaxed) == 1)
        PKExpectProcedureFinished(retry)
    }

    @Test func afterExhaustingAttemptsItFinishesWithTheLastAttemptsErrorsOnly() {
        let errors = [TestError(), TestError()]
        let retry = RetryProcedure(max: 2, body: Self.scripted(errors))
        queue.add(procedure: retry)
        waitForAll(retry)
        #expect(retry.count == 2)
        PKExpectProcedureFinishedWithErrors(retry, count: 1)
        PKExpectProcedureError(retry, equals: errors[1])
    }

    @Test func whenTheIteratorRunsOutItFinishesWithTheLastAttemptsErrors() {
        let error = TestError()
        let attempts = [TestProcedure(error: TestError()), TestProcedure(error: error)]
        let retry = RetryProcedure(iterator: attempts.makeIterator())
        queue.add(procedure: retry)
        waitForAll(retry)
        #expect(retry.count == 2)
        PKExpectProcedureFinishedWithErrors(retry, count: 1)
        PKExpectProcedureError(retry, equals: error)
    }

    @Test func shouldRetryReturningFalseStopsWithThatAttemptsError() {
        let first = TestError()
        let seen = PKMutex<[Int]>([])
        let retry = RetryProcedure(
            max: 5,
            shouldRetry: { info in
                seen.withLock { $0.append(info.count) }
                return false
            }, body: Self.scripted([first, TestError()]))
        queue.add(procedure: retry)
        waitForAll(retry)
        #expect(retry.count == 1)
        #expect(seen.withLock { $0 } == [1])
        PKExpectProcedureError(retry, equals: first)
    }

    @Test func theHandlerSeesEachFailedAttempt() {
        let errors = [TestError(), TestError()]
        let seen = PKMutex<[(Int, TestError?, Bool)]>([])
        let retry = RetryProcedure(
            max: 3,
            shouldRetry: { info in
                seen.withLock { $0.append((info.count, info.error as? TestError, info.operation.didExecute)) }
                return true
            }, body: Self.scripted(errors))
        queue.add(procedure: retry)
        waitForAll(retry)
        let calls = seen.withLock { $0 }
        #expect(calls.map(\.0) == [1, 2])
        #expect(calls.compactMap(\.1) == errors)
        #expect(calls.allSatisfy { $0.2 })
        PKExpectProcedureFinished(retry)
    }

    @Test func theHandlerMayChangeTheWaitBeforeTheNextAttempt() {
        let attempts = [TestProcedure(error: TestError()), TestProcedure()]
        let retry = RetryProcedure(clock: clock, iterator: attempts.makeIterator()) { _, payload in
            payload.set(delay: .by(7))
        }
        queue.add(procedure: retry)
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(7))
        #expect(attempts[1].didExecute == false)
        clock.advance(by: 7)
        waitForAll(retry)
        #expect(retry.count == 2)
        PKExpectProcedureFinished(retry)
    }

    @Test func itWaitsBetweenAttemptsAsItsStrategySays() {
        let retry = RetryProcedure(
            max: 4, wait: .incrementing(initial: 0, increment: 3), clock: clock,
            body: Self.scripted([TestError(), TestError(), TestError(), TestError()]))
        queue.add(procedure: retry)
        for expected in [3.0, 6.0, 9.0] {
            #expect(clock.waitForScheduledActions(count: 1))
            #expect(clock.nextDeadline == clock.now.addingTimeInterval(expected))
            clock.advanceToNextAction()
        }
        waitForAll(retry)
        #expect(retry.count == 4)
        PKExpectProcedureFinishedWithErrors(retry, count: 1)
    }

    @Test func cancelledDuringAWaitItFinishesPromptlyCancelledWithoutAnotherAttempt() {
        let retry = RetryProcedure(max: 3, wait: .constant(30), clock: clock) {
            TestProcedure(error: TestError())
        }
        queue.add(procedure: retry)
        #expect(clock.waitForScheduledActions(count: 1))
        retry.cancel()
        waitForAll(retry)
        PKExpectProcedureCancelled(retry)
        #expect(retry.count == 2)
        #expect(retry.current?.didExecute == false)
        #expect(clock.scheduledActionCount == 0)
    }

    @Test func cancelledDuringAnAttemptItCancelsItAndFinishesCancelled() {
        let retry = RetryProcedure(max: 3) { DelayProcedure(by: 60, clock: clock) }
        queue.add(procedure: retry)
        #expect(clock.waitForScheduledActions(count: 1))
        retry.cancel()
        waitForAll(retry)
        PKExpectProcedureCancelled(retry)
        #expect(retry.count == 1)
        #expect(retry.current?.isCancelled == true)
        #expect(clock.scheduledActionCount == 0)
    }

    @Test func cancelledBeforeItExecutesNoAttemptRuns() {
        let made = Atomic(0)
        let retry = RetryProcedure(max: 3) { () -> TestProcedure in
            made.add(1, ordering: .relaxed)
            return TestProcedure(error: TestError())
        }
        retry.cancel()
        queue.add(procedure: retry)
        waitForAll(retry)
        PKExpectProcedureCancelled(retry)
        #expect(retry.current?.didExecute == false)
        #expect(made.load(ordering: .relaxed) == 1)
    }

    @Test func finishedAndCancelledRetriesAndTheirAttemptsAreReleased() async {
        let leaks = LeakCheck()
        do {
            let succeeded = RetryProcedure(max: 3, body: Self.scripted([TestError(), nil]))
            let exhausted = RetryProcedure(max: 2) { TestProcedure(error: TestError()) }
            let cancelled = RetryProcedure(max: 3, wait: .constant(5), clock: clock) {
                TestProcedure(error: TestError())
            }
            leaks.track([succeeded, exhausted, cancelled])
            queue.add(procedures: succeeded, exhausted, cancelled)
            #expect(await clock.waitForScheduledActions(count: 1))
            if let attempt = cancelled.current { leaks.track(attempt) }
            cancelled.cancel()
            #expect(await waitForFinish([succeeded, exhausted, cancelled], timeout: hangTimeout))
        }
        #expect(clock.scheduledActionCount == 0)
        await PKExpectReleased(leaks)
    }
}
