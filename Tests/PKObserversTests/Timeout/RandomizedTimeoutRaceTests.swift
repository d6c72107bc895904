import Foundation
import PKCore
import PKTesting
import Testing

@testable import PKObservers

// Issue 22 §5: a TimeoutObserver firing on a ManualClock, advanced on one thread, races procedures finishing by
// themselves (cleanly or with an error of their own) on another, many times, with seeded random moves.

/// Which of the two moves of a race goes first.
private enum TimeoutRaceOrder: CaseIterable, CustomStringConvertible {
    /// Every procedure has finished before the clock moves.
    case finishFirst
    /// The clock has moved (and fired what was due) before any procedure is released.
    case fireFirst
    /// Both at once, from a start gate, at random distances.
    case race

    var description: String {
        switch self {
        case .finishFirst: "finish first"
        case .fireFirst: "fire first"
        case .race: "race"
        }
    }
}

/// One procedure of a race.
private struct TimedProcedureSpec: CustomStringConvertible {
    /// The limits of its timeout observers (several: the earliest must win).
    let delays: [TimeInterval]
    /// Whether it is timed by the previous procedure's observer values rather than values of its own.
    let sharesObservers: Bool
    /// Whether it finishes with an error of its own when released.
    let failsByItself: Bool
    let ignoresCancellation: Bool
    /// The releasing thread's spin before releasing it.
    let releaseSpin: Int

    var description: String {
        "timeouts \(delays)\(sharesObservers ? " (shared values)" : "")"
            + (failsByItself ? ", fails by itself" : "") + (ignoresCancellation ? ", ignores cancellation" : "")
            + ", released after spin \(releaseSpin)"
    }
}

/// A race: procedures timed on one clock, the clock advanced by `advance` seconds, in `order`.
private struct TimeoutRaceSpec: CustomStringConvertible {
    let seed: UInt64
    let procedures: [TimedProcedureSpec]
    let advance: TimeInterval
    let advanceSpin: Int
    let order: TimeoutRaceOrder

    var description: String {
        "seed \(seed), \(order), advance \(advance) s after spin \(advanceSpin):\n    "
            + procedures.enumerated().map { "T\($0.offset): \($0.element)" }.joined(separator: "\n    ")
    }

    static func generate(seed: UInt64) -> TimeoutRaceSpec {
        var random = RaceRandom(seed: seed)
        var procedures: [TimedProcedureSpec] = []
        for index in 0..<Int.random(in: 1...6, using: &random) {
            let shares = index > 0 && random.chance(25)
            let delays =
                shares
                ? procedures[index - 1].delays
                : (0..<Int.random(in: 1...3, using: &random)).map { _ in random.pick([1.0, 2.0, 3.0, 5.0]) }
            procedures.append(
                TimedProcedureSpec(
                    delays: delays, sharesObservers: shares, failsByItself: random.chance(30),
                    ignoresCancellation: random.chance(25), releaseSpin: random.pick([0, 10, 100, 1_000, 10_000])))
        }
        // Below the earliest limit (nothing fires), on a limit, or past them all.
        let advance = random.pick([0.5, 1.0, 2.0, 3.0, 5.0, 10.0])
        return TimeoutRaceSpec(
            seed: seed, procedures: procedures, advance: advance,
            advanceSpin: random.pick([0, 10, 100, 1_000, 10_000]), order: random.pick(TimeoutRaceOrder.allCases))
    }
}

/// Runs `spec` and returns what went wrong (nothing when the race kept every rule).
private func runTimeoutRace(_ spec: TimeoutRaceSpec) -> [String] {
    let clock = ManualClock()
    let leaks = LeakCheck()
    var violations: [String] = []
    var allObservers: [TimeoutObserver] = []
    do {
        var procedures: [RaceProcedure] = []
        var ownErrors: [TestError] = []
        var previous: [TimeoutObserver] = []
        for (index, item) in spec.procedures.enumerated() {
            let procedure = RaceProcedure(name: "T\(index)", ignoresCancellation: item.ignoresCancellation)
            let observers =
                item.sharesObservers ? previous : item.delays.map { TimeoutObserver(by: $0, clock: clock) }
            for observer in observers { procedure.addObserver(observer) }
            procedure.countFinishes()
            allObservers += observers
            previous = observers
            procedures.append(procedure)
            ownErrors.append(TestError())
            leaks.track(procedure)
        }
        let timers = spec.procedures.reduce(0) { $0 + $1.delays.count }
        ProcedureQueue().add(procedures: procedures)
        let started = procedures.allSatisfy { $0.started.wait(timeout: .now() + hangTimeout) == .success }
        guard started, clock.waitForScheduledActions(count: timers, timeout: hangTimeout) else {
            for procedure in procedures { procedure.release() }
            return ["the procedures did not all start with their \(timers) timers scheduled"]
        }

        let (errors, racing) = (ownErrors, procedures)
        let release: @Sendable () -> Void = {
            for (index, procedure) in racing.enumerated() {
                raceSpin(spec.procedures[index].releaseSpin)
                procedure.release(with: spec.procedures[index].failsByItself ? errors[index] : nil)
            }
        }
        switch spec.order {
        case .finishFirst:
            release()
            guard ProcedureWaiter.wait(for: procedures, timeout: hangTimeout) else {
                return ["released procedures did not finish before the clock moved"]
            }
            clock.advance(by: spec.advance)
        case .fireFirst:
            clock.advance(by: spec.advance)
            release()
        case .race:
            let gate = RaceGate(parties: 2)
            let released = raceThread {
                gate.arrive()
                release()
            }
            gate.arrive()
            raceSpin(spec.advanceSpin)
            clock.advance(by: spec.advance)
            if released.wait(timeout: .now() + hangTimeout) == .timedOut { return ["the releasing thread hung"] }
        }
        guard ProcedureWaiter.wait(for: procedures, timeout: hangTimeout) else {
            return ["not every procedure finished: \(procedures.filter { !$0.isFinished }.map(\.procedureName))"]
        }
        let deadline = Date().addingTimeInterval(hangTimeout)
        while procedures.contains(where: { $0.eventCounts.finishes == 0 }), Date() < deadline {
            Thread.sleep(forTimeInterval: 0.001)
        }

        for (index, procedure) in procedures.enumerated() {
            let item = spec.procedures[index]
            let earliest = item.delays.min() ?? 0
            let own: [TestError] = item.failsByItself ? [errors[index]] : []
            let timeouts = procedure.errors.filter { ($0 as? ProcedureKitError)?.context == .timedOut(.by(earliest)) }
            let others = procedure.errors.compactMap { $0 as? TestError }
            let described =
                "T\(index): cancelled \(procedure.isCancelled), \(timeouts.count) timeout errors, "
                + "\(others.count) own errors, \(procedure.errors.count) errors in all"
            let (cancels, finishes) = procedure.eventCounts
            if finishes != 1 { violations.append("T\(index): \(finishes) DidFinish events") }
            if cancels != (procedure.isCancelled ? 1 : 0) {
                violations.append("T\(index): \(cancels) DidCancel events, cancelled \(procedure.isCancelled)")
            }
            if procedure.isCancelled {
                // Only a timer cancels: it was due, and the procedure had not begun finishing by itself first.
                if spec.advance < earliest { violations.append("\(described), yet no timer was due") }
                if spec.order == .finishFirst { violations.append("\(described) after a clean finish") }
                let first = procedure.errors.first.map {
                    ($0 as? ProcedureKitError)?.context == .timedOut(.by(earliest))
                }
                if first != true || timeouts.count != 1 {
                    violations.append("\(described): the earliest timeout must be the first and only one")
                }
                if procedure.errors.count != 1 + others.count || !(others.isEmpty || others == own) {
                    violations.append("\(described): besides the timeout, only its own error may follow")
                }
            } else {
                // It finished by itself first: exactly its own errors, no timeout.
                if procedure.errors.count != own.count || others != own {
                    violations.append("\(described), expected exactly its own errors")
                }
                if spec.order == .fireFirst, spec.advance >= earliest {
                    violations.append("\(described), though its timer fired before it was released")
                }
            }
        }
        if clock.scheduledActionCount != 0 {
            violations.append("\(clock.scheduledActionCount) timers still scheduled after every procedure finished")
        }
    }
    let running = allObservers.map(\.activeTimerCount).reduce(0, +)
    if running != 0 { violations.append("the observers still have \(running) timers") }
    let unreleased = leaks.waitUntilReleased(timeout: hangTimeout)
    if !unreleased.isEmpty { violations.append("not released: \(unreleased)") }
    return violations
}

/// Timeouts firing at random moments against procedures finishing by themselves (issue 22 §5).
///
/// - Moderate level: 4,000 races from a base seed printed at the start; `PK_STRESS_LEVEL=heavy`: 60,000 (a quarter of each under ThreadSanitizer).
/// - `PK_TIMEOUT_RACE_SEED=<n>` replays one race; `PK_TIMEOUT_RACE_BASE_SEED=<n>` a whole run.
@Suite(.serialized)
struct RandomizedTimeoutRaceTests {

    static var raceCount: Int {
        // Under ThreadSanitizer every race is several times slower, and the step runs one test at a time.
        #if PK_TSAN
            raceIsHeavy ? 60_000 / 4 : 1_000
        #else
            raceIsHeavy ? 60_000 : 4_000
        #endif
    }

    /// A ManualClock advanced on one thread fires TimeoutObservers (one to three per procedure, values shared by
    /// some) while the procedures finish by themselves on another, cleanly or with an error of their own, some
    /// ignoring cancellation: each finishes exactly once; one that finished before its timer fired has exactly its
    /// own errors and no timeout; one the timer cancelled carries the earliest timeout first, once, followed at most
    /// by its own error; no timer stays scheduled and no procedure is kept.
    @Test func timeoutsFiringAsProceduresFinishNeverTouchAnEarlierFinish() async {
        let seeds = raceSeeds("PK_TIMEOUT_RACE", suite: "RandomizedTimeoutRaceTests", count: Self.raceCount)
        let failures = await onThreadOfItsOwn { () -> [String] in
            var failures: [String] = []
            for seed in seeds {
                let spec = TimeoutRaceSpec.generate(seed: seed)
                let violations = runTimeoutRace(spec)
                guard !violations.isEmpty else { continue }
                failures.append(
                    "race failed; replay with PK_TIMEOUT_RACE_SEED=\(seed)\n\(spec)\nviolations:\n  "
                        + violations.prefix(10).joined(separator: "\n  "))
                if failures.count >= 3 { break }
            }
            return failures
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }
}
