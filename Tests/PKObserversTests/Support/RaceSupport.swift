import Foundation
import PKCore
import PKTesting
import Synchronization

// Support for the randomized race suites (RandomizedTimeoutRaceTests, RandomizedShutdownRaceTests): a seedable
// generator, the seeds of a run, a start gate and busy waits that put two threads' moves at random distances.

/// A small, fast, seedable random number generator (SplitMix64), so that a race's moves replay from its seed (the
/// interleaving itself is the machine's).
struct RaceRandom: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) { state = seed }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }

    /// `true` with probability `percent`/100.
    mutating func chance(_ percent: Int) -> Bool { Int.random(in: 0..<100, using: &self) < percent }

    /// A random element of `choices`.
    mutating func pick<T>(_ choices: [T]) -> T { choices[Int.random(in: 0..<choices.count, using: &self)] }
}

/// Whether the heavy level was asked for (`PK_STRESS_LEVEL=heavy`).
let raceIsHeavy = ProcessInfo.processInfo.environment["PK_STRESS_LEVEL"] == "heavy"

/// The seeds of a run: the one `<prefix>_SEED` names (a failure's, to replay it), or `count` seeds from
/// `<prefix>_BASE_SEED` or from a random base, which is printed.
func raceSeeds(_ prefix: String, suite: String, count: Int) -> [UInt64] {
    let environment = ProcessInfo.processInfo.environment
    if let one = environment["\(prefix)_SEED"].flatMap(UInt64.init) { return [one] }
    let base = environment["\(prefix)_BASE_SEED"].flatMap(UInt64.init) ?? UInt64.random(in: 1...UInt64.max / 2)
    print("\(suite): base seed \(base), \(count) iterations")
    return (0..<UInt64(count)).map { base &+ $0 }
}

/// Busy-waits for about `iterations` loop turns: a random distance between two threads' moves, shorter than any
/// sleep.
func raceSpin(_ iterations: Int) {
    var sum = 0
    for index in 0..<iterations { sum &+= index }
    withExtendedLifetime(sum) {}
}

/// Lets `parties` threads go at the same moment: each arrives and spins until all have.
final class RaceGate: Sendable {
    private let arrived = Atomic<Int>(0)
    private let parties: Int

    init(parties: Int) { self.parties = parties }

    func arrive() {
        arrived.add(1, ordering: .sequentiallyConsistent)
        while arrived.load(ordering: .sequentiallyConsistent) < parties {}
    }
}

/// Runs `body` on a new thread; the returned semaphore is signalled when it returns.
func raceThread(_ body: @escaping @Sendable () -> Void) -> DispatchSemaphore {
    let done = DispatchSemaphore(value: 0)
    Thread {
        body()
        done.signal()
    }.start()
    return done
}

/// A procedure that starts executing, signals `started`, and finishes when released (with the error given, if
/// any) or, unless it ignores cancellation, when cancelled. It records its DidCancel and DidFinish events.
final class RaceProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: its own state is immutable, or a PKMutex, or a semaphore.

    let started = DispatchSemaphore(value: 0)
    private let ignoresCancellation: Bool
    private let events = PKMutex((cancels: 0, finishes: 0))

    init(name: String, ignoresCancellation: Bool) {
        self.ignoresCancellation = ignoresCancellation
        super.init(disableAutomaticFinishing: true)
        self.name = name
        addDidCancelBlockObserver { procedure, _ in procedure.events.withLock { $0.cancels += 1 } }
    }

    /// Records the DidFinish event: call it after the procedure's other observers are attached, or first, as the
    /// test needs.
    func countFinishes() {
        addDidFinishBlockObserver { procedure, _ in procedure.events.withLock { $0.finishes += 1 } }
    }

    /// How many DidCancel and DidFinish events it has had.
    var eventCounts: (cancels: Int, finishes: Int) { events.withLock { $0 } }

    override func execute() {
        started.signal()
    }

    override func procedureDidCancel(withErrors errors: [any Error]) {
        if !ignoresCancellation { finish() }
    }

    /// Finishes it, with `error` if given.
    func release(with error: (any Error)? = nil) {
        finish(with: error)
    }
}

/// A value threads share, guarded by its mutex (a `PKMutex`, which ThreadSanitizer sees, unlike `Mutex`).
final class RaceBox<Value: Sendable>: Sendable {
    private let storage: PKMutex<Value>

    init(_ value: Value) { storage = PKMutex(value) }

    var value: Value { storage.withLock { $0 } }

    func update<R: Sendable>(_ body: (inout sending Value) -> sending R) -> R { storage.withLock { body(&$0) } }
}
