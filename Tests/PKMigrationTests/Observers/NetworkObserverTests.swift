// Re-creates ProcedureKit's Tests/ProcedureKitTests/NetworkObserverTests.swift (ProcedureKit 5.x: NetworkObserver and
// NetworkActivityController in the core module, the indicator protocol's `isNetworkActivityIndicatorVisible`; the
// stored version's `XCTAssertProcedure…` calls are written with the 5.x `PKAssert…` names, its `add(observer:)` and
// `add(dependency:)` with 5.x's `addObserver(_:)` and `addDependency(_:)`).
//
// Changes besides imports:
// - `TestableNetworkActivityIndicator` is `final` and `Sendable` (PKObservers' indicator protocol requires it): its
//   value lives in a `Protector`, its callback is `@Sendable`, and the set-up's callback appends to a local
//   `Protector` and fulfils a local expectation instead of capturing `self` and a `weak var` (not allowed in a
//   `@Sendable` closure). It fulfils the expectation directly, not through `DispatchQueue.main.async` (a Linux test
//   process services the main queue only while it waits).
// - The controllers run on a `ManualClock` (PKObservers' `clock:`): the hide timer fires when the test advances the
//   clock, not after a second of real time. ProcedureKit's `wait(for:withTimeout:handler:)` also waited for the
//   set-up's indicator expectation (`waitForExpectations`); `wait(forIndicatorToHideAfter:withTimeout:handler:)`
//   does the same explicitly: it waits for the procedures, lets the hide timer pass, waits for the indicator to
//   hide, then runs the assertions.
// - `controller.interval` is PKObservers' `controller.timerInterval`.
// - test__network_indicator_does_not_hide_before_all_procedures_are_finished keeps ProcedureKit's three procedures,
//   delays and expectations but drives the timeline with events instead of wall-clock delays: the `DelayProcedure`s
//   and the controller share the manual clock, the test advances it step by step (procedure2 starts within the
//   grace period; the clock then passes the moment procedure1's hide would have fired and procedure3 runs), and
//   procedure2 is a procedure that finishes when procedure3 has finished, instead of a `TestProcedure` running for
//   2 × timerInterval, so that procedure3 always ends first.
//
// Left out: none. (ProcedureKit's UIKit-bound pieces, `UIApplication` as the indicator and the shared controller,
// are not tested by this file.)

import Foundation
import PKObservers
import PKTesting
import XCTest

final class TestableNetworkActivityIndicator: NetworkActivityIndicatorProtocol {
    typealias IndicatorVisibilityDidChange = @Sendable (Bool) -> Void

    let visibilityDidChange: IndicatorVisibilityDidChange
    private let visible = Protector(false)

    init(_ didChange: @escaping IndicatorVisibilityDidChange) {
        visibilityDidChange = didChange
    }

    var isNetworkActivityIndicatorVisible: Bool {
        get { visible.access }
        set {
            visible.overwrite(with: newValue)
            visibilityDidChange(newValue)
        }
    }
}

final class NetworkObserverTests: ProcedureKitTestCase {
    var controller: NetworkActivityController!
    var indicator: TestableNetworkActivityIndicator!
    var _changes: Protector<[Bool]>!
    var clock: ManualClock!
    var indicatorExpectation: XCTestExpectation!

    var changes: [Bool] {
        return _changes.read { $0 }
    }

    override func setUp() {
        super.setUp()
        let indicatorExpectation = expectation(description: "Indicator Expectation")
        let changes = Protector<[Bool]>([])
        self.indicatorExpectation = indicatorExpectation
        _changes = changes
        indicator = TestableNetworkActivityIndicator { visibility in
            changes.append(visibility)
            if !visibility {
                indicatorExpectation.fulfill()
            }
        }
        clock = ManualClock()
        controller = NetworkActivityController(indicator: indicator, clock: clock)
    }

    override func tearDown() {
        _changes = nil
        indicator = nil
        controller = nil
        clock = nil
        indicatorExpectation = nil
        super.tearDown()
    }

    /// ProcedureKit's `wait(for:withTimeout:handler:)`, which also waited for the indicator to hide: waits for
    /// `procedures`, lets the hide timer pass on ``clock``, waits for the indicator to hide, then calls `handler`.
    private func wait(
        forIndicatorToHideAfter procedures: Procedure..., withTimeout timeout: TimeInterval = 3, handler: () -> Void
    ) {
        wait(forAll: procedures, withTimeout: timeout)
        advance(clock, throughWaits: 1)
        wait(for: [indicatorExpectation], timeout: timeout)
        handler()
    }

    func test__network_indicator_shows_when_procedure_starts() {
        procedure.addObserver(NetworkObserver(controller: controller))
        wait(forIndicatorToHideAfter: procedure, withTimeout: 5) {
            PKAssertProcedureFinished(procedure)
            XCTAssertTrue(self.changes.first ?? false)
        }
    }

    func test__network_indicator_hides_after_short_delay_when_procedure_finishes() {
        procedure.addObserver(NetworkObserver(controller: controller))
        wait(forIndicatorToHideAfter: procedure, withTimeout: procedure.delay + controller.timerInterval + 1.0) {
            PKAssertProcedureFinished(procedure)
            guard self.changes.count == 2 else {
                XCTFail("Too few changes")
                return
            }
            XCTAssertTrue(self.changes[0])
            XCTAssertFalse(self.changes[1])
        }
    }

    func test__network_indicator_only_changes_once_when_multiple_procedures_start() {
        let procedure1 = TestProcedure(delay: 0.1)
        procedure1.addObserver(NetworkObserver(controller: controller))
        let procedure2 = TestProcedure(delay: 0.1)
        procedure2.addObserver(NetworkObserver(controller: controller))

        wait(
            forIndicatorToHideAfter: procedure1, procedure2,
            withTimeout: max(procedure1.delay, procedure2.delay) + controller.timerInterval + 1.0
        ) {
            PKAssertProcedureFinished(procedure1)
            PKAssertProcedureFinished(procedure2)
            XCTAssertEqual(self.changes, [true, false])
        }
    }

    func test__network_indicator_does_not_hide_before_all_procedures_are_finished() {

        let timerInterval = 1.0

        //
        // Definitions:
        //  timerInterval = the interval used inside NetworkIndicatorController for its Timer
        //
        // This test uses the following 3 operations to affect the NetworkIndicator:
        //
        //              [startTime]                                         [duration]
        // procedure1   immediately                                         0.1 seconds
        // procedure2   operation1.endTime + 0.1 seconds                    until procedure3 has finished
        // procedure3   operation1.endTime + timerInterval + (a bit extra)  0.1 seconds
        //
        // (Times of the manual clock, which the test advances; only the procedures' own durations are real time.)
        //
        // procedure1
        //      - started immediately (by itself), triggers the network indicator, ends, and causes
        //        NetworkIndicatorController to queue a Timer to remove the network indicator
        // procedure2
        //      - a "long-running" operation, starts after procedure1 finishes, but before the
        //        Timer that was queued as a result of procedure1 finishing fires
        //      - this should result in the Timer being cancelled before it fires, and the network
        //        activity indicator remaining visible for the duration of procedure2
        //        (procedure2 is the last operation to finish)
        // procedure3
        //      - a short procedure that starts after procedure2 is running, after the original Timer
        //        that procedure1 triggered would have fired (if it weren't cancelled), and
        //        ends before procedure2 is finished
        //      - this should not change the visible state of the network indicator, as it should still
        //        be visible (as a result of procedure2)
        //
        // The expected output of this timing and sequence of operations is a network indicator that
        // shows at the start of procedure1, and disappears "timerInterval" seconds after the end of
        // procedure2. (i.e. 2 visibility changes: true, false)
        //
        // Previously, this test would fail by producing 4 visibility changes: (true, false, true, false)
        //

        let controller = NetworkActivityController(timerInterval: timerInterval, indicator: indicator, clock: clock)

        let procedure1 = TestProcedure(delay: 0.1)
        procedure1.addObserver(NetworkObserver(controller: controller))

        let procedure2Started = DispatchSemaphore(value: 0)
        let procedure2 = makeWaitingProcedure(name: "procedure2", started: procedure2Started)
        procedure2.addObserver(NetworkObserver(controller: controller))
        let delayForProcedure2 = DelayProcedure(by: 0.1, clock: clock)
        procedure2.addDependency(delayForProcedure2)
        addCompletionBlockTo(procedure: procedure2)

        let procedure3 = TestProcedure(delay: 0.1)
        procedure3.addObserver(NetworkObserver(controller: controller))
        let delayForProcedure3 = DelayProcedure(by: (timerInterval + 0.2), clock: clock)
        procedure3.addDependency(delayForProcedure3)
        procedure3.addDidFinishBlockObserver { _, _ in procedure2.finish() }
        addCompletionBlockTo(procedure: procedure3)

        let afterFirstGroup = GroupProcedure(operations: delayForProcedure2, procedure2, delayForProcedure3, procedure3)
        afterFirstGroup.addDependency(procedure1)

        // wait until all procedures have finished and the timer has invalidated the network indicator

        addCompletionBlockTo(procedures: [procedure1, afterFirstGroup])
        run(operations: procedure1, afterFirstGroup)
        // procedure1 has finished: its hide timer (at 1.0) and the two delays (at 0.1 and 1.2) are pending.
        XCTAssertTrue(clock.waitForScheduledActions(count: 3))
        clock.advanceToNextAction()  // 0.1: procedure2 starts, calling off the hide
        XCTAssertSignalled(procedure2Started)
        clock.advanceToNextAction()  // 1.2 (nothing is due at 1.0 any more): procedure3 runs, then procedure2 ends
        advance(clock, throughWaits: 1)  // 2.2: the hide timer of procedure2's end fires
        waitForPendingExpectations(timeout: (timerInterval + 0.5) * 3.0 + (timerInterval * 2.0))
        wait(for: [indicatorExpectation], timeout: 3)
        PKAssertProcedureFinished(procedure1)
        PKAssertProcedureFinished(procedure2)
        PKAssertProcedureFinished(procedure3)
        XCTAssertEqual(self.changes, [true, false])
    }
}
