import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

struct ManualClockTests {

    let start = Date(timeIntervalSinceReferenceDate: 1_000)

    @Test func timeMovesOnlyWhenAdvanced() {
        let clock = ManualClock(now: start)
        #expect(clock.now == start)
        #expect(clock.now == start)
        clock.advance(by: .seconds(2))
        #expect(clock.now == start.addingTimeInterval(2))
        clock.advance(by: 0.5)
        #expect(clock.now == start.addingTimeInterval(2.5))
    }

    @Test func advancingNeverMovesTimeBackwards() {
        let clock = ManualClock(now: start)
        clock.advance(to: start.addingTimeInterval(-10))
        clock.advance(by: -3)
        #expect(clock.now == start)
    }

    @Test func anActionRunsOnlyOnceItsDeadlineIsReached() {
        let clock = ManualClock(now: start)
        let runs = Atomic(0)
        _ = clock.schedule(after: .seconds(5)) { runs.add(1, ordering: .relaxed) }
        #expect(clock.scheduledActionCount == 1)
        clock.advance(by: .seconds(4))
        #expect(runs.load(ordering: .relaxed) == 0)
        clock.advance(by: .seconds(1))
        #expect(runs.load(ordering: .relaxed) == 1)
        #expect(clock.scheduledActionCount == 0)
        clock.advance(by: .seconds(100))
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    @Test func dueActionsRunInDeadlineOrderAndTiesInScheduleOrder() {
        let clock = ManualClock(now: start)
        let order = PKMutex<[String]>([])
        for (name, seconds) in [("c", 3), ("a", 1), ("b1", 2), ("b2", 2)] {
            _ = clock.schedule(after: .seconds(seconds)) { order.withLock { $0.append(name) } }
        }
        clock.advance(by: .seconds(10))
        #expect(order.withLock { $0 } == ["a", "b1", "b2", "c"])
    }

    @Test func nowReadsTheActionsDeadlineWhileItRuns() {
        let clock = ManualClock(now: start)
        let seen = PKMutex<Date?>(nil)
        _ = clock.schedule(after: .seconds(3)) { seen.withLock { $0 = clock.now } }
        clock.advance(by: .seconds(10))
        #expect(seen.withLock { $0 } == start.addingTimeInterval(3))
        #expect(clock.now == start.addingTimeInterval(10))
    }

    @Test func anActionScheduledWhileAdvancingRunsInTheSameAdvanceWhenDue() {
        let clock = ManualClock(now: start)
        let order = PKMutex<[String]>([])
        _ = clock.schedule(after: .seconds(1)) {
            order.withLock { $0.append("first") }
            _ = clock.schedule(after: .seconds(1)) { order.withLock { $0.append("second") } }
            _ = clock.schedule(after: .seconds(50)) { order.withLock { $0.append("late") } }
        }
        clock.advance(by: .seconds(5))
        #expect(order.withLock { $0 } == ["first", "second"])
        #expect(clock.scheduledActionCount == 1)
    }

    @Test func aCancelledActionNeverRunsAndIsDropped() {
        let clock = ManualClock(now: start)
        let runs = Atomic(0)
        let action = clock.schedule(after: .seconds(1)) { runs.add(1, ordering: .relaxed) }
        action.cancel()
        action.cancel()
        #expect(clock.scheduledActionCount == 0)
        clock.advance(by: .seconds(2))
        #expect(runs.load(ordering: .relaxed) == 0)
        #expect(clock.totalScheduledActionCount == 1)
    }

    @Test func aZeroDelayActionRunsAtTheNextAdvance() {
        let clock = ManualClock(now: start)
        let runs = Atomic(0)
        _ = clock.schedule(after: .zero) { runs.add(1, ordering: .relaxed) }
        _ = clock.schedule(after: .seconds(-4)) { runs.add(1, ordering: .relaxed) }
        #expect(runs.load(ordering: .relaxed) == 0)
        clock.advance(by: .zero)
        #expect(runs.load(ordering: .relaxed) == 2)
    }

    @Test func advanceToNextActionJumpsToTheEarliestDeadline() {
        let clock = ManualClock(now: start)
        let runs = Atomic(0)
        #expect(clock.advanceToNextAction() == false)
        _ = clock.schedule(after: .seconds(7)) { runs.add(1, ordering: .relaxed) }
        _ = clock.schedule(after: .seconds(9)) { runs.add(1, ordering: .relaxed) }
        #expect(clock.nextDeadline == start.addingTimeInterval(7))
        #expect(clock.advanceToNextAction())
        #expect(clock.now == start.addingTimeInterval(7))
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    @Test func schedulingAtADateUsesTheClocksNow() {
        let clock = ManualClock(now: start)
        let runs = Atomic(0)
        _ = clock.schedule(at: start.addingTimeInterval(4)) { runs.add(1, ordering: .relaxed) }
        #expect(clock.nextDeadline == start.addingTimeInterval(4))
        clock.advance(by: 4)
        #expect(runs.load(ordering: .relaxed) == 1)
    }

    @Test func waitingForScheduledActionsSeesActionsScheduledOnAnotherThread() {
        let clock = ManualClock(now: start)
        DispatchQueue.global().async {
            _ = clock.schedule(after: .seconds(1)) {}
            _ = clock.schedule(after: .seconds(2)) {}
        }
        #expect(clock.waitForScheduledActions(count: 2, timeout: 20))
    }

    @Test func awaitingScheduledActionsSeesActionsScheduledOnAnotherThread() async {
        let clock = ManualClock(now: start)
        DispatchQueue.global().async {
            _ = clock.schedule(after: .seconds(1)) {}
        }
        #expect(await clock.waitForScheduledActions(count: 1, timeout: 20))
    }

    @Test func waitingForScheduledActionsGivesUpAfterTheTimeout() {
        #expect(ManualClock(now: start).waitForScheduledActions(count: 1, timeout: 0.01) == false)
    }

    @Test func awaitingScheduledActionsGivesUpAfterTheTimeout() async {
        #expect(await ManualClock(now: start).waitForScheduledActions(count: 1, timeout: 0.01) == false)
    }

    @Test func concurrentSchedulingCancellingAndAdvancingRunEachLiveActionOnce() {
        let clock = ManualClock(now: start)
        let runs = PKMutex<[Int: Int]>([:])
        let cancelled = PKMutex<Set<Int>>([])
        DispatchQueue.concurrentPerform(iterations: 400) { index in
            let action = clock.schedule(after: .milliseconds(index % 37)) {
                runs.withLock { $0[index, default: 0] += 1 }
            }
            if index % 5 == 0 {
                action.cancel()
                cancelled.withLock { _ = $0.insert(index) }
            }
            if index % 7 == 0 { clock.advance(by: .milliseconds(3)) }
        }
        clock.advance(by: .seconds(1))
        let ran = runs.withLock { $0 }
        #expect(ran.values.allSatisfy { $0 == 1 })
        #expect(clock.scheduledActionCount == 0)
        let cancelledSet = cancelled.withLock { $0 }
        // An action cancelled after an advance already ran it ran once; every other action ran exactly once.
        for index in 0..<400 where !cancelledSet.contains(index) {
            #expect(ran[index] == 1)
        }
    }

    @Test func cancellingReleasesTheAction() async {
        let clock = ManualClock(now: start)
        let leaks = LeakCheck()
        do {
            let payload = LeakProbe()
            leaks.track(payload)
            let action = clock.schedule(after: .seconds(1)) { withExtendedLifetime(payload) {} }
            action.cancel()
        }
        await PKExpectReleased(leaks)
    }
}

/// An object whose release a LeakCheck watches.
final class LeakProbe: Sendable {}
