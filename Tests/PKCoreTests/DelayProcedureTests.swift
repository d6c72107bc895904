import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

struct DelayProcedureTests {

    let queue = ProcedureQueue()
    let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: 5_000))

    @Test func delayByFinishesOnlyWhenTheClockReachesTheDelay() {
        let delay = DelayProcedure(by: 10, clock: clock)
        queue.add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(10))
        clock.advance(by: 9)
        #expect(!delay.isFinished)
        clock.advance(by: 1)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
    }

    @Test func delayByDurationWaitsForTheDuration() {
        let delay = DelayProcedure(by: .milliseconds(1_500), clock: clock)
        queue.add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(1.5))
        clock.advance(by: .milliseconds(1_500))
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
    }

    @Test(arguments: [0, -1, -1_000] as [TimeInterval])
    func aDelayThatIsNotPositiveFinishesAtOnce(seconds: TimeInterval) {
        let delay = DelayProcedure(by: seconds, clock: clock)
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func delayUntilAFutureDateWaitsUntilTheClockReachesIt() {
        let date = clock.now.addingTimeInterval(60)
        let delay = DelayProcedure(until: date, clock: clock)
        clock.advance(by: 20)  // the interval is worked out when the delay executes
        queue.add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == date)
        clock.advance(to: date)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
    }

    @Test func delayUntilAPastDateFinishesAtOnce() {
        let delay = DelayProcedure(until: clock.now.addingTimeInterval(-30), clock: clock)
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func delayUntilADateThatPassesBeforeItExecutesFinishesAtOnce() {
        let delay = DelayProcedure(until: clock.now.addingTimeInterval(30), clock: clock)
        clock.advance(by: 31)
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func cancelledBeforeItExecutesItFinishesCancelledWithoutWaiting() {
        // BEHAVIOUR §13.47 (before execution)
        let delay = DelayProcedure(by: 10, clock: clock)
        delay.cancel()
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureCancelled(delay)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func cancelledWhileWaitingItFinishesPromptlyCancelledAndDropsTheClockAction() {
        // BEHAVIOUR §13.47 (during execution)
        let delay = DelayProcedure(by: 10, clock: clock)
        queue.add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1))
        delay.cancel()
        waitForAll(delay)
        PKExpectProcedureCancelled(delay)
        #expect(clock.scheduledActionCount == 0)
    }

    @Test func cancelledWithAnErrorItEndsCancelledWithThatError() {
        let error = TestError()
        let delay = DelayProcedure(by: 10, clock: clock)
        queue.add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1))
        delay.cancel(with: error)
        waitForAll(delay)
        PKExpectProcedureCancelled(delay, withErrors: true)
        PKExpectProcedureError(delay, equals: error)
    }

    @Test func cancellingAsTheClockFiresFinishesExactlyOnce() {
        for _ in 0..<50 {
            let clock = ManualClock()
            let delay = DelayProcedure(by: 1, clock: clock)
            let didFinish = Atomic(0)
            delay.addDidFinishBlockObserver { _, _ in didFinish.add(1, ordering: .relaxed) }
            queue.add(procedure: delay)
            #expect(clock.waitForScheduledActions(count: 1))
            DispatchQueue.concurrentPerform(iterations: 2) { index in
                if index == 0 { clock.advance(by: 1) } else { delay.cancel() }
            }
            waitForAll(delay)
            #expect(didFinish.load(ordering: .relaxed) == 1)
            #expect(delay.isFinished)
        }
    }

    @Test func aPendingInputCancelsItWithRequirementNotSatisfied() {
        let delay = DelayProcedure(delay: nil, clock: clock)
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureCancelled(delay, withErrors: true)
        PKExpectProcedureError(delay, equals: ProcedureKitError.requirementNotSatisfied())
    }

    @Test func anInjectedInputIsTheDelay() {
        let delay = DelayProcedure(delay: nil, clock: clock)
        delay.input = .ready(.by(3))
        queue.add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(3))
        clock.advance(by: 3)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
    }

    @Test func itIsNamedAfterItsDelay() {
        #expect(DelayProcedure(by: 1, clock: clock).name == "Delay for 1.0 seconds")
        #expect(DelayProcedure(delay: nil, clock: clock).name == "Delay")
    }

    @Test func cancelledDelaysAndTheirClockActionsAreReleased() async {
        let leaks = LeakCheck()
        do {
            let waiting = DelayProcedure(by: 10, clock: clock)
            let early = DelayProcedure(by: 10, clock: clock)
            let finished = DelayProcedure(by: 1, clock: clock)
            leaks.track([waiting, early, finished])
            early.cancel()
            queue.add(procedures: waiting, early, finished)
            #expect(await clock.waitForScheduledActions(count: 2))
            waiting.cancel()
            clock.advance(by: 1)
            #expect(await waitForFinish([waiting, early, finished], timeout: hangTimeout))
        }
        #expect(clock.scheduledActionCount == 0)
        await PKExpectReleased(leaks)
    }

    @Test func withTheSystemClockATinyDelayFinishes() {
        let delay = DelayProcedure(by: .milliseconds(5))
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
    }

    @Test func theSystemClockReleasesACancelledAction() async {
        let leaks = LeakCheck()
        let runs = Atomic(0)
        do {
            let probe = LeakProbe()
            leaks.track(probe)
            let action = SystemClock().schedule(after: .seconds(3_600)) {
                withExtendedLifetime(probe) {}
                runs.add(1, ordering: .relaxed)
            }
            action.cancel()
        }
        await PKExpectReleased(leaks)
        #expect(runs.load(ordering: .relaxed) == 0)
    }

    @Test func aGroupCancelledWhileItsDelayChildWaitsFinishesPromptly() {
        // The delay finishes inline, on the thread cancelling the group, while the group cancels its children.
        let delay = DelayProcedure(by: 100, clock: clock)
        let group = GroupProcedure(operations: [delay])
        queue.add(procedure: group)
        #expect(clock.waitForScheduledActions(count: 1))
        group.cancel()
        waitForAll(group)
        PKExpectProcedureCancelled(group)
        PKExpectProcedureCancelled(delay, withErrors: true)
        #expect(clock.scheduledActionCount == 0)
    }
}
