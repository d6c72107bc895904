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
}
