import Foundation
import PKTesting
import Testing

/// Randomized, seeded, model-based scenarios (see ``ScenarioSpec/generate(seed:deepNestingDepth:)`` for what
/// they contain and ``ScenarioRunner`` for the invariants checked).
///
/// - Moderate level (CI): 400 scenarios (150 under ThreadSanitizer), seeds derived from a base seed printed at
///   the start; heavy level (`PK_STRESS_LEVEL=heavy`): 20,000 (5,000 under ThreadSanitizer), with a deep nest of
///   groups now and then.
/// - `PK_STRESS_SEED=<n>` replays one scenario (the seed a failure printed); `PK_STRESS_BASE_SEED=<n>` replays a
///   whole run.
@Suite(.serialized)
struct RandomizedScenarioTests {

    static let environment = ProcessInfo.processInfo.environment
    static let heavy = environment["PK_STRESS_LEVEL"] == "heavy"

    static var scenarioCount: Int {
        #if PK_TSAN
            heavy ? 5_000 : 150
        #else
            heavy ? 20_000 : 400
        #endif
    }

    @Test func randomScenariosKeepEveryInvariant() async {
        let seeds: [UInt64]
        if let one = Self.environment["PK_STRESS_SEED"].flatMap(UInt64.init) {
            seeds = [one]
        } else {
            let base =
                Self.environment["PK_STRESS_BASE_SEED"].flatMap(UInt64.init)
                ?? UInt64.random(in: 1...UInt64.max / 2)
            print("RandomizedScenarioTests: base seed \(base), \(Self.scenarioCount) scenarios")
            seeds = (0..<UInt64(Self.scenarioCount)).map { base &+ $0 }
        }
        let depth = Self.heavy ? 8_000 : 0
        // Off the cooperative pool, which a run of thousands of blocking scenarios would otherwise hold; logging is
        // switched off one scenario at a time, so tests that set it themselves wait for one scenario at most.
        let failures = await onThreadOfItsOwn { () -> [String] in
            var failures: [String] = []
            for seed in seeds {
                let spec = ScenarioSpec.generate(seed: seed, deepNestingDepth: depth)
                let violations = GlobalLogSettings.with(enabled: false) { ScenarioRunner.run(spec) }
                guard !violations.isEmpty else { continue }
                let listed = violations.prefix(10).joined(separator: "\n  ")
                failures.append(
                    "scenario failed; replay with PK_STRESS_SEED=\(seed)\n\(spec)\nviolations:\n  \(listed)")
                if failures.count >= 3 { break }
            }
            return failures
        }
        for failure in failures { Issue.record(Comment(rawValue: failure)) }
    }
}
