import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

/// A watched queue's progress under reports racing finishes: each round adds a few procedures that several threads
/// report into while the procedures finish at random moments, and the next round starts the moment the last one
/// finished, while reports of the round before may still be on their way. The queue must start afresh exactly:
/// nothing of an earlier round may reach the new sums.
///
/// - Moderate level (CI): 300 rounds (100 under ThreadSanitizer); heavy level (`PK_STRESS_LEVEL=heavy`): 20,000
///   (5,000 under ThreadSanitizer).
/// - `PK_STRESS_SEED=<n>` replays a run's choices (the seed is printed at the start).
@Suite(.serialized)
struct RandomizedProgressTests {

    static let environment = ProcessInfo.processInfo.environment
    static let heavy = environment["PK_STRESS_LEVEL"] == "heavy"

    static var rounds: Int {
        #if PK_TSAN
            heavy ? 5_000 : 100
        #else
            heavy ? 20_000 : 300
        #endif
    }

    /// Executes, then finishes after a random pause, on another thread.
    final class Racer: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `pause` is immutable.
        private let pause: UInt32

        init(pause: UInt32) {
            self.pause = pause
            super.init()
        }

        override func execute() {
            let pause = pause
            // A thread of its own (a private serial queue): the reporters keep pool threads busy.
            DispatchQueue(label: "Racer.finish").async {
                if pause > 0 { usleep(pause) }
                self.finish()
            }
        }
    }

    /// Executes and waits for ``release()``.
    final class Held: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `gate` is a Mutex.
        private let gate = Mutex((executing: false, released: false))

        override func execute() {
            let go = gate.withLock { gate -> Bool in
                gate.executing = true
                return gate.released
            }
            if go { finish() }
        }

        func release() {
            let go = gate.withLock { gate -> Bool in
                gate.released = true
                return gate.executing
            }
            if go { finish() }
        }
    }

    @Test func aWatchedQueueStartsAfreshExactlyWhateverReportsWereStillOnTheirWay() async {
        let seed = Self.environment["PK_STRESS_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max / 2)
        print("RandomizedProgressTests: seed \(seed), \(Self.rounds) rounds")
        let failures = await onThreadOfItsOwn { Self.run(seed: seed) }
        let failed = failures.count
        #expect(failed == 0, "seed \(seed), \(failed) of \(Self.rounds) rounds: \(failures.prefix(5))")
    }

    /// Runs every round; returns what went wrong (off the test's task, so it records nothing itself).
    static func run(seed: UInt64) -> [String] {
        var random = SeededGenerator(seed: seed)
        var failures: [String] = []
        let queue = ProcedureQueue()
        let monitor = ProgressMonitor(queue)
        var held = Held()
        queue.add(procedure: held)
        for round in 0..<rounds {
            let count = Int.random(in: 1...4, using: &random)
            let racers = (0..<count).map { _ in Racer(pause: UInt32.random(in: 0...200, using: &random)) }
            let reporters = DispatchGroup()
            for racer in racers {
                let threads = Int.random(in: 1...3, using: &random)
                let units = Bool.random(using: &random)
                for thread in 0..<threads {
                    // Threads of their own (private serial queues), never the global pool the queue runs on.
                    DispatchQueue(label: "RandomizedProgressTests.reporter").async(group: reporters) {
                        var step: Int64 = 0
                        while !racer.isFinished && step < 100_000 {
                            step += 1
                            if units {
                                racer.reportProgress(completed: step % 100, of: 100 + Int64(thread))
                            } else {
                                racer.reportProgress(fractionCompleted: Double(step % 100) / 100)
                            }
                        }
                    }
                }
            }
            queue.add(procedures: racers)
            held.release()
            guard ProcedureWaiter.wait(for: racers + [held], timeout: hangTimeout) else {
                return failures + ["round \(round): the procedures did not finish"]
            }
            // Everything the queue counted has finished: the next procedure starts it afresh, while reports of
            // this round may still be on their way to it.
            held = Held()
            queue.add(procedure: held)
            guard reporters.wait(timeout: .now() + hangTimeout) == .success else {
                return failures + ["round \(round): the reporters did not stop"]
            }
            let progress = monitor.progress
            if progress.totalUnitCount != 1 || progress.completedUnitCount != 0 || progress.fractionCompleted != 0 {
                failures.append("round \(round): a fresh start read \(progress)")
            }
        }
        held.release()
        _ = ProcedureWaiter.wait(for: held, timeout: hangTimeout)
        return failures
    }
}
