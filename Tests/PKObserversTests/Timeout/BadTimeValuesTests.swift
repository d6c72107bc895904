import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// PKObservers' time parameters with bad values: clamped or documented, never a trap (issue 22 §2).
struct ObserversBadTimeValuesTests {

    static let intervals: [TimeInterval] = [-.infinity, -1, 0, .nan, 1e-9, 1e19, .infinity]
    static let durations: [Duration] = [.seconds(-1), .zero, .nanoseconds(1), .seconds(1e19)]

    /// A timeout of any length, as seconds or a `Duration` (longer than `Int64.max` seconds included), on a
    /// manual clock: the procedure finishes by itself and no timeout error follows.
    @Test func timeoutsOfAnyLengthLetAProcedureFinish() {
        let clock = ManualClock()
        var observers = Self.intervals.map { TimeoutObserver(by: $0, clock: clock) }
        observers += Self.durations.map { TimeoutObserver(by: $0, clock: clock) }
        let procedures = observers.map { observer -> TestProcedure in
            let procedure = TestProcedure()
            procedure.addObserver(observer)
            return procedure
        }
        let queue = ProcedureQueue()
        queue.add(procedures: procedures)
        #expect(waitForAll(procedures))
        #expect(procedures.allSatisfy { $0.errors.isEmpty && !$0.isCancelled })
    }

    /// A shutdown whose grace and cancellation periods are near `Duration`'s limit: their sum, the stop timeout
    /// systemd hears, used to overflow.
    @Test func hugeShutdownPeriodsDoNotOverflow() {
        let huge = Duration.seconds(1.5e20)
        var machine = ShutdownStateMachine<String, String, Int>(gracePeriod: huge, cancellationPeriod: huge)
        _ = machine.register("job", name: "job", behavior: .never, handle: "job")
        guard
            case .beginGracePeriod(_, let grace, let stopTimeout) = machine.requestShutdown(
                .requested, gracePeriod: nil)
        else {
            Issue.record("the grace period did not begin")
            return
        }
        #expect(grace <= .seconds(1e12))
        #expect(stopTimeout <= .seconds(2e12))
        #expect(SystemdNotifier.microseconds(stopTimeout) > 0)
    }

    /// The microseconds systemd is told: saturated, never an overflow, however long the timeout.
    @Test(arguments: [
        Duration.seconds(1e19), .seconds(Int64.max), .seconds(Int64.max / 1_000_000),
        Duration(secondsComponent: 9_223_372_036_854, attosecondsComponent: 999_999_999_999_999_999),
    ])
    func systemdTimeoutsSaturate(duration: Duration) {
        #expect(SystemdNotifier.microseconds(duration) == .max)
    }

    /// A coordinator given absurd periods schedules both and goes through them on a manual clock: a procedure that
    /// ignores cancellation holds shutdown open, so each period really is waited for (with nothing watched, the
    /// coordinator finishes at once and never schedules a timer).
    @Test func aCoordinatorTakesAbsurdPeriods() async {
        for duration in Self.durations + [.seconds(-1e19)] {
            let clock = ManualClock()
            let coordinator = ShutdownCoordinator(gracePeriod: duration, cancellationPeriod: duration, clock: clock)
            let job = StubbornProcedure(name: "job")
            job.addObserver(BackgroundObserver(cancelProcedure: .whenGracePeriodExpires, coordinator: coordinator))
            ProcedureQueue().add(procedure: job)
            await executing(job)
            coordinator.requestShutdown()
            #expect(coordinator.phase == .shuttingDown, "\(duration)")
            #expect(clock.scheduledActionCount == 1, "the grace period's timer, for \(duration)")
            if let deadline = clock.nextDeadline {
                #expect(deadline >= clock.now, "a negative period counts as zero: \(duration)")
                #expect(deadline.timeIntervalSince(clock.now) <= max(0, duration.timeInterval) + 1)
            }
            #expect(clock.advanceToNextAction())
            #expect(job.isCancelled, "the grace period expired, for \(duration)")
            if duration > .zero {
                #expect(coordinator.phase == .cancellingStragglers, "\(duration)")
                #expect(clock.advanceToNextAction(), "the cancellation period's timer, for \(duration)")
            }
            // A period of zero or less: its timer is due at once, and ran in the same advance.
            #expect(coordinator.phase == .finished, "\(duration)")
            job.release()
            await finished(job)
        }
    }
}
