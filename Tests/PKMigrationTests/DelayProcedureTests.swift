import Foundation
import PKTesting
import XCTest

final class DelayProcedureTests: ProcedureKitTestCase {

    private var clock: ManualClock!

    override func setUp() {
        super.setUp()
        clock = ManualClock()
    }

    override func tearDown() {
        clock = nil
        super.tearDown()
    }

    func test__with_interval_name() {
        XCTAssertEqual(DelayProcedure(by: 1).name, "Delay for 1.0 seconds")
    }

    func test__with_date_name() {
        let date = Date()
        // Differs from ProcedureKit: the date is described with `Date`'s description, not a `DateFormatter`.
        XCTAssertEqual(DelayProcedure(until: date).name, "Delay until \(date)")
    }

    func test__with_negative_time_interval_finishes_immediately() {
        let delay = DelayProcedure(by: -9_000_000, clock: clock)
        wait(for: delay)
        PKAssertProcedureFinished(delay)
        XCTAssertEqual(clock.totalScheduledActionCount, 0)
    }

    func test__with_distant_past_finishes_immediately() {
        let delay = DelayProcedure(until: .distantPast, clock: clock)
        wait(for: delay)
        PKAssertProcedureFinished(delay)
        XCTAssertEqual(clock.totalScheduledActionCount, 0)
    }

    func test__completes_after_interval() {
        let delay = DelayProcedure(by: 0.5, clock: clock)
        addCompletionBlockTo(procedure: delay)
        run(operation: delay)
        XCTAssertTrue(clock.waitForScheduledActions(count: 1))
        clock.advance(by: 0.4)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 0.1)
        waitForPendingExpectations()
        PKAssertProcedureFinished(delay)
    }

    func test__completes_at_date() {
        let delay = DelayProcedure(until: clock.now.addingTimeInterval(2), clock: clock)
        addCompletionBlockTo(procedure: delay)
        run(operation: delay)
        XCTAssertTrue(clock.waitForScheduledActions(count: 1))
        clock.advance(by: 1.5)
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 0.5)
        waitForPendingExpectations()
        PKAssertProcedureFinished(delay)
    }

    func test__timer_is_not_fired_when_cancelled() {
        let delay = DelayProcedure(by: 10, clock: clock)
        delay.cancel()
        wait(for: delay)
        PKAssertProcedureCancelled(delay)
        XCTAssertEqual(clock.totalScheduledActionCount, 0)
    }

    func test__timer_cancelled_after_execute_finishes_immediately() {
        let delay = DelayProcedure(by: 10, clock: clock)
        delay.addDidExecuteBlockObserver { $0.cancel() }
        wait(for: delay)
        PKAssertProcedureCancelled(delay)
        XCTAssertEqual(clock.scheduledActionCount, 0)
    }

    func test__inject_delay_from_procedure_outputing_delay() {
        let result = ResultProcedure { Delay.by(0.5) }
        let delay = DelayProcedure(clock: clock).injectResult(from: result)
        addCompletionBlockTo(procedures: [result, delay])
        run(operations: result, delay)
        XCTAssertTrue(clock.waitForScheduledActions(count: 1))
        XCTAssertFalse(delay.isFinished)
        clock.advance(by: 0.5)
        waitForPendingExpectations()
        PKAssertProcedureFinished(delay)
        XCTAssertEqual(delay.delay, .by(0.5))
    }

    func test__inject_delay_from_procedure_outputing_interval() {
        let result = ResultProcedure { TimeInterval(0.5) }
        let delay = DelayProcedure(clock: clock).injectResult(from: result, via: { Delay.by($0) })
        addCompletionBlockTo(procedures: [result, delay])
        run(operations: result, delay)
        XCTAssertTrue(clock.waitForScheduledActions(count: 1))
        clock.advance(by: 0.5)
        waitForPendingExpectations()
        PKAssertProcedureFinished(delay)
    }

    func test__delay_without_input_cancels_with_requirement_not_satisfied() {
        let delay = DelayProcedure(clock: clock)
        wait(for: delay)
        PKAssertProcedureCancelledWithError(delay, ProcedureKitError.requirementNotSatisfied())
    }
}
