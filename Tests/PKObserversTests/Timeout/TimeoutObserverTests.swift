import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

@testable import PKObservers

/// TimeoutObserver (ProcedureKit's behaviour, BEHAVIOUR.md §7.4), driven by a ManualClock: no sleeps.
@Suite struct TimeoutObserverTests {

    /// Adds `procedure` with `observers`, waits until it executes and its timers are scheduled on `clock`.
    private func start(_ procedure: HeldProcedure, _ observers: [TimeoutObserver], clock: ManualClock) -> Bool {
        for observer in observers { procedure.addObserver(observer) }
        ProcedureQueue().add(procedure: procedure)
        return procedure.waitUntilStarted() && clock.waitForScheduledActions(count: observers.count)
    }

    @Test func theTimerStartsJustBeforeExecuteNotWhenAdded() {
        let clock = ManualClock()
        let gate = HeldProcedure(name: "Gate")
        let procedure = HeldProcedure()
        procedure.addDependency(gate)
        procedure.addObserver(TimeoutObserver(by: 5, clock: clock))
        let queue = ProcedureQueue()
        queue.add(procedures: gate, procedure)
        #expect(gate.waitUntilStarted())
        clock.advance(by: 60)
        #expect(clock.totalScheduledActionCount == 0)
        gate.release()
        #expect(procedure.waitUntilStarted())
        #expect(clock.waitForScheduledActions(count: 1))
        #expect(clock.nextDeadline == clock.now.addingTimeInterval(5))
        procedure.release()
        #expect(waitForAll(procedure))
    }

    @Test func aProcedureStillRunningWhenTheTimerFiresIsCancelledWithTimedOut() {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        #expect(start(procedure, [TimeoutObserver(by: 5, clock: clock)], clock: clock))
        clock.advance(by: 4.9)
        #expect(!procedure.isCancelled)
        clock.advance(by: 0.1)
        #expect(waitForAll(procedure))
        #expect(procedure.isCancelled)
        #expect(containsTimeout(procedure.errors, delay: .by(5)))
    }

    @Test func aDurationLimitCarriesItsSecondsInTheError() {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        #expect(start(procedure, [TimeoutObserver(by: .milliseconds(1_500), clock: clock)], clock: clock))
        clock.advance(by: .seconds(2))
        #expect(waitForAll(procedure))
        #expect(containsTimeout(procedure.errors, delay: .by(1.5)))
    }

    @Test func aDeadlineIsTurnedIntoAnIntervalWhenExecuteStarts() {
        let clock = ManualClock()
        let deadline = clock.now.addingTimeInterval(10)
        clock.advance(by: 4)
        let procedure = HeldProcedure()
        #expect(start(procedure, [TimeoutObserver(until: deadline, clock: clock)], clock: clock))
        #expect(clock.nextDeadline == deadline)
        clock.advance(to: deadline)
        #expect(waitForAll(procedure))
        #expect(containsTimeout(procedure.errors, delay: .until(deadline)))
    }

    @Test(arguments: [0.0, -1.0])
    func aZeroOrNegativeIntervalStartsNoTimer(interval: TimeInterval) {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        procedure.addObserver(TimeoutObserver(by: interval, clock: clock))
        ProcedureQueue().add(procedure: procedure)
        #expect(procedure.waitUntilStarted())
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(clock.totalScheduledActionCount == 0)
        #expect(!procedure.isCancelled)
    }

    @Test func aDeadlineAlreadyPassedStartsNoTimer() {
        let clock = ManualClock()
        let deadline = clock.now
        clock.advance(by: 1)
        let procedure = HeldProcedure()
        procedure.addObserver(TimeoutObserver(until: deadline, clock: clock))
        ProcedureQueue().add(procedure: procedure)
        #expect(procedure.waitUntilStarted())
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func aProcedureThatIgnoresCancellationFinishesLaterStillCarryingTheTimeout() {
        let clock = ManualClock()
        let procedure = HeldProcedure(ignoresCancellation: true)
        #expect(start(procedure, [TimeoutObserver(by: 1, clock: clock)], clock: clock))
        clock.advance(by: 1)
        #expect(procedure.isCancelled)
        #expect(!procedure.isFinished)
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(containsTimeout(procedure.errors, delay: .by(1)))
    }

    @Test func withSeveralObserversTheEarliestWinsAndItsDelayIsInTheError() {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        let observers = [3.0, 1.0, 2.0].map { TimeoutObserver(by: $0, clock: clock) }
        #expect(start(procedure, observers, clock: clock))
        clock.advance(by: 10)
        #expect(waitForAll(procedure))
        #expect(containsTimeout(procedure.errors, delay: .by(1)))
        #expect(procedure.errors.count == 1)
    }

    @Test func oneObserverValueTimesEachOfSeveralProceduresSeparately() {
        let clock = ManualClock()
        let observer = TimeoutObserver(by: 5, clock: clock)
        let first = HeldProcedure(name: "First")
        let second = HeldProcedure(name: "Second")
        first.addObserver(observer)
        second.addObserver(observer)
        let queue = ProcedureQueue()
        queue.add(procedure: first)
        #expect(first.waitUntilStarted() && clock.waitForScheduledActions(count: 1))
        clock.advance(by: 3)
        queue.add(procedure: second)
        #expect(second.waitUntilStarted() && clock.waitForScheduledActions(count: 2))
        clock.advance(by: 2)
        #expect(waitForAll(first))
        #expect(containsTimeout(first.errors, delay: .by(5)))
        #expect(!second.isCancelled)
        second.release()
        #expect(waitForAll(second))
        #expect(!containsAnyTimeout(second.errors))
        #expect(observer.activeTimerCount == 0)
    }

    /// On the system clock a value carries one timer of its own for its first procedure; the others, and the same
    /// procedure attached twice, go to the shared table. Every timer is stopped at finish, and nothing is kept.
    @Test func onTheSystemClockEveryTimerOfAValueIsStoppedAtFinishAndNothingIsKept() {
        let observer = TimeoutObserver(by: 3_600)
        let leaks = LeakCheck()
        do {
            let procedures = [HeldProcedure(name: "First"), HeldProcedure(name: "Second")]
            for procedure in procedures {
                leaks.track(procedure)
                procedure.addObserver(observer)
            }
            procedures[0].addObserver(observer)
            let queue = ProcedureQueue()
            for procedure in procedures {
                queue.add(procedure: procedure)
                #expect(procedure.waitUntilStarted())
            }
            #expect(observer.activeTimerCount == 3)
            for procedure in procedures { procedure.release() }
            #expect(waitForAll(procedures))
            #expect(procedures.allSatisfy { !$0.isCancelled && $0.errors.isEmpty })
        }
        #expect(leaks.waitUntilReleased().isEmpty)
        #expect(observer.activeTimerCount == 0)
    }

    @Test func anAlreadyCancelledProcedureKeepsItsCancellationAndGetsNoTimeoutError() {
        let clock = ManualClock()
        let procedure = HeldProcedure(ignoresCancellation: true)
        #expect(start(procedure, [TimeoutObserver(by: 1, clock: clock)], clock: clock))
        procedure.cancel(with: TestError())
        clock.advance(by: 5)
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(procedure.errors.count == 1)
        #expect(procedure.errors.first is TestError)
    }

    @Test func aProcedureCancelledBeforeItStartsGetsNoTimer() {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        procedure.addObserver(TimeoutObserver(by: 1, clock: clock))
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll(procedure))
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func aProcedureFinishingInTimeGetsNoTimeoutAndItsTimerIsCancelled() {
        let clock = ManualClock()
        let observer = TimeoutObserver(by: 5, clock: clock)
        let procedure = HeldProcedure()
        #expect(start(procedure, [observer], clock: clock))
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(clock.scheduledActionCount == 0)
        #expect(observer.activeTimerCount == 0)
        clock.advance(by: 10)
        #expect(procedure.errors.isEmpty)
        #expect(!procedure.isCancelled)
    }

    @Test func anObserverAttachedAfterFinishDoesNothing() {
        let clock = ManualClock()
        let procedure = TestProcedure()
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll(procedure))
        let observer = TimeoutObserver(by: 1, clock: clock)
        procedure.addObserver(observer)
        let last = DispatchSemaphore(value: 0)
        procedure.addObserver(BlockObserver<Procedure>(didFinish: { _, _ in last.signal() }))
        #expect(waitFor(last, "the late observers"))
        #expect(clock.totalScheduledActionCount == 0)
        #expect(observer.activeTimerCount == 0)
        #expect(procedure.errors.isEmpty)
    }

    @Test func timeoutAfterIsATimeoutObserverInOneLine() {
        let clock = ManualClock()
        let procedure = HeldProcedure().timeout(after: .seconds(2), clock: clock)
        ProcedureQueue().add(procedure: procedure)
        #expect(procedure.waitUntilStarted() && clock.waitForScheduledActions(count: 1))
        clock.advance(by: 2)
        #expect(waitForAll(procedure))
        #expect(containsTimeout(procedure.errors, delay: .by(2)))
    }

    @Test func runWithATimeoutThrowsTimedOut() async {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        let queue = ProcedureQueue()
        async let outcome: Result<Void, any Error> = {
            do { return .success(try await queue.run(procedure, timeout: .seconds(3), clock: clock)) } catch {
                return .failure(error)
            }
        }()
        guard await clock.waitForScheduledActions(count: 1) else {
            Issue.record("the timeout was never scheduled")
            procedure.cancel()  // ends the run, which the async let waits for
            _ = await outcome
            return
        }
        clock.advance(by: 3)
        let result = await outcome
        guard case .failure(let error) = result else {
            Issue.record("run returned without throwing")
            return
        }
        #expect((error as? ProcedureKitError)?.context == .timedOut(.by(3)))
    }

    @Test func runWithATimeoutReturnsTheOutputOfAProcedureThatFinishesInTime() async throws {
        let clock = ManualClock()
        let output = try await ProcedureQueue().run(ResultProcedure { 42 }, timeout: .seconds(3), clock: clock)
        #expect(output == 42)
        #expect(clock.scheduledActionCount == 0)
    }

    @Test func neitherTheObserverNorItsTimerKeepsAFinishedProcedure() {
        let clock = ManualClock()
        let observer = TimeoutObserver(by: 5, clock: clock)
        let leaks = LeakCheck()
        do {
            let procedure = HeldProcedure()
            leaks.track(procedure)
            #expect(start(procedure, [observer], clock: clock))
            procedure.release()
            #expect(waitForAll(procedure))
        }
        #expect(leaks.waitUntilReleased().isEmpty)
        #expect(observer.activeTimerCount == 0)
    }

    @Test func aTimerFiringAsTheProcedureFinishesNeverAddsAnErrorToACleanFinish() {
        // The race of a timeout against a finish, many times: the procedure finishes exactly once, and either it
        // was cancelled by the timeout (and carries it) or it finished clean with no timeout error.
        let clock = ManualClock()
        for _ in 0..<200 {
            let procedure = HeldProcedure()
            let finishes = DispatchSemaphore(value: 0)
            procedure.addDidFinishBlockObserver { _, _ in finishes.signal() }
            #expect(start(procedure, [TimeoutObserver(by: 1, clock: clock)], clock: clock))
            DispatchQueue.global().async { procedure.release() }
            clock.advance(by: 1)
            #expect(waitFor(finishes, "the finish"))
            #expect(finishes.wait(timeout: .now()) == .timedOut)
            if procedure.isCancelled {
                #expect(containsTimeout(procedure.errors, delay: .by(1)))
            } else {
                #expect(procedure.errors.isEmpty)
            }
        }
    }
}
