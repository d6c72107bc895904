import Dispatch
import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

@testable import PKObservers

/// An indicator that records every change and the queue each write came from.
final class RecordingIndicator: NetworkActivityIndicatorProtocol {
    // Sendable: all state is in the Mutex.
    private struct State {
        var visible = false
        var changes: [Bool] = []
        var writesOffTheExpectedQueue = 0
    }
    private let state = Mutex(State())
    let expectedQueueKey: DispatchSpecificKey<Bool>?

    init(expectedQueueKey: DispatchSpecificKey<Bool>? = nil) {
        self.expectedQueueKey = expectedQueueKey
    }

    var isNetworkActivityIndicatorVisible: Bool {
        get { state.withLock { $0.visible } }
        set {
            let onExpectedQueue = expectedQueueKey.map { DispatchQueue.getSpecific(key: $0) == true } ?? true
            state.withLock {
                $0.visible = newValue
                $0.changes.append(newValue)
                if !onExpectedQueue || Thread.isMainThread { $0.writesOffTheExpectedQueue += 1 }
            }
        }
    }

    var changes: [Bool] { state.withLock { $0.changes } }
    var writesOffTheExpectedQueue: Int { state.withLock { $0.writesOffTheExpectedQueue } }
}

/// NetworkActivityController and NetworkObserver (ProcedureKit's behaviour, BEHAVIOUR.md §8.1, with its bug fixed),
/// driven by a ManualClock.
@Suite struct NetworkActivityTests {

    private struct Fixture {
        let clock = ManualClock()
        let indicator = RecordingIndicator()
        let controller: NetworkActivityController
        let queue = ProcedureQueue()

        init(interval: TimeInterval = 1) {
            controller = NetworkActivityController(timerInterval: interval, indicator: indicator, clock: clock)
        }

        /// The indicator's changes once every write asked for so far has run.
        var changes: [Bool] {
            controller.queue.sync {}
            return indicator.changes
        }

        func started(_ name: String = "Held") -> HeldProcedure {
            let procedure = HeldProcedure(name: name)
            procedure.addObserver(NetworkObserver(controller: controller))
            queue.add(procedure: procedure)
            _ = procedure.waitUntilStarted()
            return procedure
        }
    }

    @Test func theIndicatorIsShownWhenAProcedureStarts() {
        let fixture = Fixture()
        let procedure = fixture.started()
        #expect(fixture.changes == [true])
        #expect(fixture.controller.inFlightCount == 1)
        procedure.release()
        #expect(waitForAll(procedure))
    }

    @Test func itIsHiddenTheIntervalAfterTheLastOneFinishesWithExactlyTwoChanges() {
        let fixture = Fixture(interval: 1)
        let procedure = fixture.started()
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(fixture.clock.waitForScheduledActions(count: 1))
        fixture.clock.advance(by: 0.9)
        #expect(fixture.changes == [true])
        fixture.clock.advance(by: 0.1)
        #expect(fixture.changes == [true, false])
        #expect(fixture.controller.inFlightCount == 0)
    }

    @Test func twoOverlappingProceduresStillGiveExactlyTwoChanges() {
        let fixture = Fixture()
        let first = fixture.started("First")
        let second = fixture.started("Second")
        #expect(fixture.controller.inFlightCount == 2)
        first.release()
        #expect(waitForAll(first))
        #expect(fixture.clock.scheduledActionCount == 0)
        second.release()
        #expect(waitForAll(second))
        #expect(fixture.clock.waitForScheduledActions(count: 1))
        fixture.clock.advance(by: 1)
        #expect(fixture.changes == [true, false])
        #expect(fixture.controller.peakInFlightCount == 2)
    }

    @Test func aProcedureStartingInsideTheGracePeriodKeepsTheIndicatorOnWithoutAFlicker() {
        let fixture = Fixture()
        let first = fixture.started("First")
        first.release()
        #expect(waitForAll(first))
        #expect(fixture.clock.waitForScheduledActions(count: 1))
        fixture.clock.advance(by: 0.5)
        let second = fixture.started("Second")
        #expect(fixture.clock.scheduledActionCount == 0)
        fixture.clock.advance(by: 5)
        #expect(fixture.changes == [true])
        second.release()
        #expect(waitForAll(second))
        #expect(fixture.clock.waitForScheduledActions(count: 1))
        fixture.clock.advance(by: 1)
        #expect(fixture.changes == [true, false])
    }

    @Test func aProcedureCancelledBeforeItStartsNeitherCountsNorTouchesTheIndicator() {
        // ProcedureKit's bug: DidFinish without WillExecute stopped without a start, driving the count below zero.
        let fixture = Fixture()
        let running = fixture.started("Running")
        let cancelled = HeldProcedure(name: "Cancelled")
        cancelled.addObserver(NetworkObserver(controller: fixture.controller))
        cancelled.cancel()
        fixture.queue.add(procedure: cancelled)
        #expect(waitForAll(cancelled))
        #expect(fixture.controller.inFlightCount == 1)
        running.release()
        #expect(waitForAll(running))
        #expect(fixture.controller.inFlightCount == 0)
        #expect(fixture.clock.waitForScheduledActions(count: 1))
        fixture.clock.advance(by: 1)
        #expect(fixture.changes == [true, false])
    }

    @Test func anUnbalancedStopIsRefusedWithAWarningAndTheCountStaysAtZero() {
        let fixture = Fixture()
        let writer = TestableLogWriter()
        GlobalLogSettings.with(enabled: true, severity: .warning, writer: writer) {
            fixture.controller.stop()
        }
        #expect(fixture.controller.inFlightCount == 0)
        #expect(writer.messages.contains { $0.contains("without a matching start") })
        fixture.controller.start()
        #expect(fixture.controller.inFlightCount == 1)
        #expect(fixture.changes == [true])
    }

    @Test func theIndicatorIsWrittenOnlyOnTheQueueGiven() {
        let key = DispatchSpecificKey<Bool>()
        let queue = DispatchQueue(label: "indicator")
        queue.setSpecific(key: key, value: true)
        let clock = ManualClock()
        let indicator = RecordingIndicator(expectedQueueKey: key)
        let controller = NetworkActivityController(timerInterval: 1, indicator: indicator, queue: queue, clock: clock)
        #expect(controller.queue === queue)
        for _ in 0..<20 {
            controller.start()
            controller.stop()
            clock.advance(by: 1)
        }
        queue.sync {}
        #expect(indicator.changes == Array(repeating: [true, false], count: 20).flatMap { $0 })
        #expect(indicator.writesOffTheExpectedQueue == 0)
    }

    @Test func startsAndStopsFromManyThreadsBalanceOut() {
        let fixture = Fixture()
        DispatchQueue.concurrentPerform(iterations: 1_000) { _ in
            fixture.controller.start()
            fixture.controller.stop()
        }
        #expect(fixture.controller.inFlightCount == 0)
        #expect(fixture.controller.peakInFlightCount >= 1)
        fixture.clock.advance(by: 1)
        let changes = fixture.changes
        #expect(changes == [true, false])
    }

    @Test func manyProceduresOnAnUnlimitedQueueLeaveNothingInFlight() {
        let fixture = Fixture()
        let observer = NetworkObserver(controller: fixture.controller)
        let procedures = (0..<200).map { index -> TestProcedure in
            let procedure = TestProcedure(name: "P\(index)")
            procedure.addObserver(observer)
            if index.isMultiple(of: 3) { procedure.cancel() }
            return procedure
        }
        fixture.queue.add(procedures: procedures)
        #expect(waitForAll(procedures))
        #expect(fixture.controller.inFlightCount == 0)
        fixture.clock.advance(by: 1)
        #expect(fixture.changes.last == false)
    }

    @Test func neitherObserverNorControllerKeepsAFinishedProcedure() {
        let leaks = LeakCheck()
        let fixture = Fixture()
        do {
            let procedure = fixture.started()
            leaks.track(procedure)
            procedure.release()
            #expect(waitForAll(procedure))
        }
        #expect(leaks.waitUntilReleased().isEmpty)
    }

    @Test func aPendingHideDoesNotKeepTheControllerAlive() {
        let clock = ManualClock()
        let leaks = LeakCheck()
        do {
            let controller = NetworkActivityController(indicator: RecordingIndicator(), clock: clock)
            leaks.track(controller)
            controller.start()
            controller.stop()
            #expect(clock.scheduledActionCount == 1)
        }
        #expect(leaks.waitUntilReleased().isEmpty)
        clock.advance(by: 5)
    }
}

/// The controller's state machine, thread-free: every event in every relevant state.
@Suite struct NetworkActivityStateTests {

    private struct FakeTimer: ScheduledAction {
        func cancel() {}
    }

    @Test func startFromIdleShowsTheIndicator() {
        var state = NetworkActivityState()
        guard case .updateIndicator(visible: true, _) = state.start() else {
            Issue.record("expected updateIndicator")
            return
        }
        #expect(state.visible && state.count == 1)
    }

    @Test func aSecondStartChangesNothingVisible() {
        var state = NetworkActivityState()
        _ = state.start()
        guard case .none = state.start() else {
            Issue.record("expected none")
            return
        }
        #expect(state.count == 2 && state.peak == 2)
    }

    @Test func theLastStopSchedulesAHideForTheCurrentGeneration() {
        var state = NetworkActivityState()
        _ = state.start()
        guard case .scheduleHide(let generation) = state.stop() else {
            Issue.record("expected scheduleHide")
            return
        }
        #expect(generation == state.generation)
        #expect(state.visible)
        let kept = state.hideScheduled(generation: generation, timer: FakeTimer())
        #expect(kept)
        guard case .updateIndicator(visible: false, _) = state.hideTimerFired(generation: generation) else {
            Issue.record("expected updateIndicator")
            return
        }
        #expect(!state.visible)
    }

    @Test func aStartDuringTheGracePeriodCancelsTheHideAndTheOldTimerIsStale() {
        var state = NetworkActivityState()
        _ = state.start()
        guard case .scheduleHide(let generation) = state.stop() else { return }
        let kept = state.hideScheduled(generation: generation, timer: FakeTimer())
        #expect(kept)
        guard case .cancelHide = state.start() else {
            Issue.record("expected cancelHide")
            return
        }
        guard case .none = state.hideTimerFired(generation: generation) else {
            Issue.record("a stale timer must do nothing")
            return
        }
        #expect(state.visible)
    }

    @Test func aHideScheduledAfterANewStartIsRefused() {
        var state = NetworkActivityState()
        _ = state.start()
        guard case .scheduleHide(let generation) = state.stop() else { return }
        _ = state.start()
        let kept = state.hideScheduled(generation: generation, timer: FakeTimer())
        #expect(!kept)
    }

    @Test func aStopWithoutAStartIsRefused() {
        var state = NetworkActivityState()
        guard case .refuseUnbalancedStop = state.stop() else {
            Issue.record("expected refuseUnbalancedStop")
            return
        }
        #expect(state.count == 0)
    }

    @Test func aTimerFiringWhileHiddenDoesNothing() {
        var state = NetworkActivityState()
        guard case .none = state.hideTimerFired(generation: state.generation) else {
            Issue.record("expected none")
            return
        }
        #expect(!state.visible)
    }
}
