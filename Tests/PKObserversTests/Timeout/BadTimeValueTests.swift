import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// Time values at and beyond their limits, given to PKObservers' public time parameters on a ManualClock (the
/// system clock clamps on its own): each is clamped or ignored, never a trap (issue 22).
@Suite struct BadTimeValueTests {

    static let intervals: [TimeInterval] = [-.infinity, -1, 0, .nan, 1e-9, 1e19, .infinity]

    @Test(arguments: intervals)
    func aTimeoutObserverTakesAnyIntervalOnAnyClock(interval: TimeInterval) {
        let clock = ManualClock()
        let procedure = HeldProcedure()
        procedure.addObserver(TimeoutObserver(by: interval, clock: clock))
        ProcedureQueue().add(procedure: procedure)
        #expect(procedure.waitUntilStarted())
        procedure.release()
        #expect(waitForAll(procedure))
        #expect(procedure.errors.isEmpty, "a procedure finishing at once is not timed out (\(interval) s)")
    }

    @Test(arguments: intervals)
    func aNetworkActivityControllerTakesAnyHideInterval(interval: TimeInterval) {
        let clock = ManualClock()
        let indicator = RecordingIndicator()
        let controller = NetworkActivityController(timerInterval: interval, indicator: indicator, clock: clock)
        controller.start()
        controller.stop()  // schedules the hide: trapped with an infinite interval
        clock.advance(by: 3_600)
        controller.queue.sync {}
        // Shown, then hidden within the hour, unless the interval is longer (1e19 s and infinity are clamped to
        // about 31,000 years, not to zero); NaN and negatives hide at once.
        let hidesWithinTheHour = interval.isNaN || interval < 3_600
        let expected = hidesWithinTheHour ? [true, false] : [true]
        #expect(indicator.changes == expected)
    }
}
