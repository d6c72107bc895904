import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// A procedure whose `execute()` blocks its thread until three blocks it sent to the global queue have run (each
/// tries to finish it): the sync-over-async pattern ported from Darwin.
final class BlockingProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func execute() {
        let group = DispatchGroup()
        for _ in 0..<3 {
            group.enter()
            DispatchQueue.global().async {
                self.finish()
                group.leave()
            }
        }
        group.wait()
    }
}

/// A procedure whose `execute()` blocks until a procedure it adds to its own queue has finished.
final class WaitsForInnerProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `queue` is immutable and thread-safe.
    let queue: ProcedureQueue

    init(queue: ProcedureQueue) {
        self.queue = queue
        super.init()
    }

    override func execute() {
        let inner = BlockProcedure {}
        queue.add(procedure: inner)
        inner.waitUntilFinished()
        finish()
    }
}

/// Waits for `procedures` from a thread of its own, suspending the calling task (so it holds no pool thread);
/// `false` after ``hangTimeout``.
func waitOffThePool(_ procedures: [Procedure]) async -> Bool {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: ProcedureWaiter.wait(for: procedures, timeout: hangTimeout)) }.start()
    }
}

/// Where loops run: `execute()` calls that block their thread must not fill the global dispatch pool, and busy ones
/// still get every core.
@Suite(.serialized)
struct LoopBudgetTests {

    @Test func twoHundredExecutesBlockingOnWorkTheySentToTheGlobalQueueAllFinish() async {
        // Before the loop budget this took 20 s on Linux: the pool filled with blocked executes and the blocks they
        // waited for waited for the pool to grow, about a thread a second. Waited for from a thread of its own, as
        // the test's own thread is a pool thread: blocking it would take one more pool thread away (see
        // ``LoopBudget``).
        let queue = ProcedureQueue()
        let procedures = (0..<200).map { _ in BlockingProcedure() }
        queue.add(procedures: procedures)
        #expect(await waitOffThePool(procedures))
        #expect(procedures.allSatisfy { $0.isFinished && !$0.failed })
    }

    @Test func executesBlockingOnProceduresOfTheirOwnQueueDoNotDeadlock() {
        // More outer procedures than the budget's pool slots, each blocking until an inner procedure on the same
        // queue has run: the inner ones can only run on relief threads.
        let queue = ProcedureQueue()
        let outers = (0..<(LoopBudget.limit * 3)).map { _ in WaitsForInnerProcedure(queue: queue) }
        queue.add(procedures: outers)
        #expect(waitForAll(outers))
        #expect(outers.allSatisfy { $0.isFinished })
    }

    @Test func reliefThreadsAndLanesAreGivenBackWhenTheWorkIsDone() async {
        let queue = ProcedureQueue()
        let outers = (0..<(LoopBudget.limit * 3)).map { _ in WaitsForInnerProcedure(queue: queue) }
        queue.add(procedures: outers)
        await queue.allOperationsFinished()
        // Relief loops end just after the last procedure; other suites may hold lanes meanwhile, but none of them
        // keeps every lane blocked for long. Polled, without a wall-clock assertion.
        var counts = LoopBudget.counts
        for _ in 0..<2_000 where counts.relief > 0 || counts.waiting > 0 {
            try? await Task.sleep(for: .milliseconds(5))
            counts = LoopBudget.counts
        }
        #expect(counts.relief == 0)
        #expect(counts.waiting == 0)
        #expect((0...LoopBudget.limit).contains(counts.busy))
    }

    @Test(.enabled(if: LoopBudget.limit >= 2, "needs two cores"))
    func twoBusyExecutesRunAtOnceWhenThereAreTwoCores() {
        // Each spins, never blocking, until it sees the other running: only a second lane (the reserve, given to
        // a loop that waited) lets both finish before the deadline.
        let running = Atomic(0)
        let deadline = ContinuousClock.now + .seconds(30)
        let procedures = (0..<2).map { _ in
            BlockProcedure {
                running.add(1, ordering: .sequentiallyConsistent)
                while running.load(ordering: .sequentiallyConsistent) < 2, ContinuousClock.now < deadline {}
            }
        }
        let queue = ProcedureQueue()
        queue.add(procedures: procedures)
        #expect(waitForAll(procedures))
        #expect(running.load(ordering: .sequentiallyConsistent) == 2)
        #expect(ContinuousClock.now < deadline)
    }

    @Test func aLongRunOfBusyProceduresOnOneQueueDoesNotKeepTheLanesFromAnotherQueue() async {
        // 400 procedures each spinning 20 ms (less once the quick one has run) fill every lane for seconds; a
        // procedure added to another queue must get a lane long before the ones still waiting drain, not after (it
        // did after, when a loop kept its lane while its queue had work). Counted from the quick one's add, so a
        // test thread slow to add it (a loaded machine) does not count against the queue.
        let stop = Atomic(false)
        let firstStarted = DispatchSemaphore(value: 0)
        let started = Atomic(0)
        let finished = Atomic(0)
        let finishedBeforeQuick = Atomic(-1)
        let busy = (0..<400).map { _ in
            BlockProcedure {
                if started.add(1, ordering: .relaxed).oldValue == 0 { firstStarted.signal() }
                let end = ContinuousClock.now + .milliseconds(20)
                while !stop.load(ordering: .acquiring), ContinuousClock.now < end {}
                finished.add(1, ordering: .relaxed)
            }
        }
        let busyQueue = ProcedureQueue()
        busyQueue.add(procedures: busy)
        #expect(await Task.detached { firstStarted.wait(timeout: .now() + hangTimeout) == .success }.value)
        let quick = BlockProcedure {
            finishedBeforeQuick.store(finished.load(ordering: .relaxed), ordering: .relaxed)
            stop.store(true, ordering: .releasing)
        }
        let otherQueue = ProcedureQueue()
        let finishedAtAdd = finished.load(ordering: .relaxed)
        otherQueue.add(procedure: quick)
        #expect(await waitOffThePool(busy + [quick]))
        let ranFirst = finishedBeforeQuick.load(ordering: .relaxed) - finishedAtAdd
        let waiting = busy.count - finishedAtAdd
        // Only a test thread stalled for seconds leaves too few waiting to tell a yield from a drain.
        if waiting >= 100 {
            #expect(ranFirst < waiting / 2, "\(ranFirst) of the \(waiting) busy procedures still waiting ran first")
        }
    }

    #if os(Linux)
        @Test func aSpinningThreadIsRunnableAndAWaitingOneIsNot() {
            // What the monitor reads to tell a lane thread waiting for a core from a blocked one.
            let clocks = PKMutex<[Bool: Int64]>([:])  // by whether the thread spins
            let stop = Atomic(false)
            let release = DispatchSemaphore(value: 0)
            let published = DispatchGroup()
            let done = DispatchGroup()
            for spins in [true, false] {
                published.enter()
                done.enter()
                Thread {
                    var id = clockid_t()
                    _ = pthread_getcpuclockid(pthread_self(), &id)
                    clocks.withLock { $0[spins] = Int64(id) }
                    published.leave()
                    if spins {
                        while !stop.load(ordering: .relaxed) {}
                    } else {
                        release.wait()
                    }
                    done.leave()
                }.start()
            }
            published.wait()
            let waiter = LoopBudget.thread(ofCPUClock: clocks.withLock { $0[false] ?? 0 })
            let spinner = LoopBudget.thread(ofCPUClock: clocks.withLock { $0[true] ?? 0 })
            // The waiter reaches its wait soon after publishing; polled, without a wall-clock assertion.
            var waiterRunnable = true
            for _ in 0..<2_000 where waiterRunnable {
                usleep(1_000)
                waiterRunnable = LoopBudget.threadIsRunnable(waiter)
            }
            let spinnerRunnable = LoopBudget.threadIsRunnable(spinner)
            stop.store(true, ordering: .relaxed)
            release.signal()
            done.wait()
            #expect(spinner > 0 && waiter > 0 && spinner != waiter)
            #expect(spinnerRunnable)
            #expect(!waiterRunnable)
        }
    #endif
}
