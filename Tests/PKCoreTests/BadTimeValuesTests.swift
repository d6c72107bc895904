import Foundation
import PKTesting
import Testing

@testable import PKCore

/// Every public time parameter of PKCore with the values a user (or a parser) may hand it: each is clamped,
/// rejected or documented, and none traps (issue 22 §2). The other modules have their own table.
struct BadTimeValuesTests {

    static let intervals: [TimeInterval] = [-.infinity, -1, 0, .nan, 1e-9, 1e19, .infinity]
    static let durations: [Duration] = [.seconds(-1), .zero, .nanoseconds(1), .seconds(1e19), .seconds(-1e19)]
    static let dates: [Date] = [.distantPast, .distantFuture]

    /// `Duration.seconds(1e19)` is a valid `Duration` longer than `Int64.max` seconds, where `components` traps.
    @Test(arguments: durations)
    func aDurationConvertsToSecondsWithoutTrapping(duration: Duration) {
        let seconds = duration.timeInterval
        #expect(seconds.isFinite)
        #expect((seconds > 0) == (duration > .zero))
        #expect(abs(duration.clampedForArithmetic.timeInterval) <= 1e12)
    }

    /// Every wait strategy, with every bad value in every position, yields finite, non-NaN waits (except a
    /// constant, which is the caller's value and is clamped where it is used), and building a retry or a repeat
    /// with it (which takes the first wait at once) does not trap.
    @Test(arguments: intervals)
    func everyWaitStrategyTakesABadValue(value: TimeInterval) {
        let strategies: [WaitStrategy] = [
            .incrementing(initial: value, increment: value), .incrementing(initial: 1, increment: value),
            .fibonacci(period: value, maximum: value), .fibonacci(period: 1, maximum: value),
            .exponential(power: value, period: value, maximum: value),
            .exponential(power: 2, period: 1, maximum: value),
            .random(minimum: value, maximum: 1), .random(minimum: 0, maximum: value),
            .random(minimum: value, maximum: value),
            .random(minimum: -value, maximum: value),
        ]
        for strategy in strategies {
            var iterator = strategy.makeIterator()
            for _ in 0..<5 {
                let wait = iterator.next()
                #expect(
                    wait.map { !$0.isNaN && abs($0) <= 1e12 } == true, "\(strategy) gave \(String(describing: wait))")
            }
            let clock = ManualClock()
            _ = RetryProcedure(max: 2, wait: strategy, clock: clock, iterator: [TestProcedure()].makeIterator())
            _ = RepeatProcedure(max: 2, wait: strategy, clock: clock, iterator: [TestProcedure()].makeIterator())
            _ = Array(IteratorSequence(strategy.makeDelayIterator()).prefix(3))
        }
    }

    /// A delay of any length, as a `TimeInterval`, a `Duration` or a date, waits on the clock or finishes at once,
    /// and never traps; its name (which prints the delay) too.
    @Test func delaysOfEveryLengthRunOnAManualClock() {
        let clock = ManualClock()
        var delays = Self.intervals.map { DelayProcedure(by: $0, clock: clock) }
        delays += Self.durations.map { DelayProcedure(by: $0, clock: clock) }
        delays += Self.dates.map { DelayProcedure(until: $0, clock: clock) }
        let queue = ProcedureQueue()
        for delay in delays {
            _ = delay.procedureName
            queue.add(procedure: delay)
        }
        // Six wait (1e-9, 1e19 and +∞ seconds, a nanosecond, 1e19 seconds, the distant future), scheduled at most
        // ~31,000 years ahead; the others finish at once. Advancing that far finishes them all.
        #expect(clock.waitForScheduledActions(count: 6))
        clock.advance(by: 1e13)
        #expect(waitForAll(delays))
        #expect(delays.allSatisfy { $0.isFinished && $0.errors.isEmpty })
    }

    /// A block procedure's timeout of any value either never fires (zero, negative, NaN) or fires on the clock.
    @Test(arguments: intervals)
    func aBlockProcedureTakesAnyTimeout(timeout: TimeInterval) {
        let clock = ManualClock()
        let procedure = BlockProcedure(timeout: timeout, clock: clock) { $0.finish() }
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll([procedure]))
        #expect(procedure.errors.isEmpty)
    }

    /// The clocks schedule any `Duration` and any date: the system clock's timer is cancelled unfired, the manual
    /// clock moves by any amount.
    @Test func clocksScheduleAndAdvanceByAnyAmount() {
        for duration in Self.durations {
            SystemClock().schedule(after: duration) {}.cancel()
            let clock = ManualClock()
            clock.schedule(after: duration) {}.cancel()
            clock.advance(by: duration)
        }
        for date in Self.dates { SystemClock().schedule(at: date) {}.cancel() }
        for interval in Self.intervals { ManualClock().advance(by: interval) }
    }

    /// A NaN date prints: its `description` traps in swift-foundation, and a delay's description (and so a
    /// `DelayProcedure(until:)`'s name) prints its date.
    @Test func aDelayUntilANaNDatePrintsAndFinishes() {
        let nan = Date(timeIntervalSinceReferenceDate: .nan)
        #expect(Delay.until(nan).description == "until an invalid date (NaN)")
        let clock = ManualClock()
        let delay = DelayProcedure(until: nan, clock: clock)
        #expect(delay.name == "Delay until an invalid date (NaN)")
        ProcedureQueue().add(procedure: delay)
        #expect(waitForAll([delay]))
        #expect(Date.distantFuture.printableDescription == Date.distantFuture.description)
    }

    /// A Fibonacci or exponential backoff whose maximum is NaN keeps backing off (only the 1e12 s limit caps it)
    /// instead of retrying with no wait at all.
    @Test func aBackoffWithANaNMaximumStillBacksOff() {
        let fibonacci = Array(WaitStrategy.fibonacci(period: 1, maximum: .nan).prefix(7))
        #expect(fibonacci == [0, 1, 1, 2, 3, 5, 8])
        let exponential = Array(WaitStrategy.exponential(power: 2, period: 1, maximum: .nan).prefix(5))
        #expect(exponential == [1, 2, 4, 8, 16])
        let huge = Array(WaitStrategy.exponential(power: 10, period: 1, maximum: .nan).prefix(20))
        #expect(huge.last == 1e12)
    }

    /// A manual clock made at a NaN date starts at its default instead (a NaN date is neither before nor after
    /// any deadline, so nothing would ever fall due), and advancing to a NaN date moves nothing.
    @Test func aManualClockAtANaNDateStillRunsWhatFallsDue() {
        let clock = ManualClock(now: Date(timeIntervalSinceReferenceDate: .nan))
        #expect(clock.now == Date(timeIntervalSinceReferenceDate: 0))
        let ran = PKMutex(false)
        _ = clock.schedule(after: .seconds(1)) { ran.withLock { $0 = true } }
        clock.advance(to: Date(timeIntervalSinceReferenceDate: .nan))
        #expect(clock.now == Date(timeIntervalSinceReferenceDate: 0))
        clock.advance(by: .seconds(1))
        #expect(ran.withLock { $0 })
    }

    /// Every PKTesting wait reads a NaN timeout as zero: it checks once and gives up, instead of hanging (a NaN
    /// deadline is never reached) or, for some, returning at once while others hung.
    @Test func pkTestingWaitsGiveUpAtOnceOnANaNTimeout() async {
        let never = TestProcedure()  // never enqueued: never finishes
        #expect(!ProcedureWaiter.wait(for: never, timeout: .nan))
        #expect(await !waitForFinish(never, timeout: .nan))
        #expect(await !waitForFinish([never], timeout: .nan))
        #expect(!ManualClock().waitForScheduledActions(count: 1, timeout: .nan))
        #expect(await !ManualClock().waitForScheduledActions(count: 1, timeout: .nan))
        let leaks = LeakCheck()
        leaks.track(never, name: "never")
        #expect(leaks.waitUntilReleased(timeout: .nan) == ["never"])
        #expect(await leaks.unreleased(timeout: .nan) == ["never"])
        withExtendedLifetime(never) {}
    }
}
