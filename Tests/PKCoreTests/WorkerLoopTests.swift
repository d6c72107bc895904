import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// The queue's worker loops: blocking work does not hold up the rest, loops yield a serial underlying queue
/// between batches, and conditions are evaluated without a free slot.
struct WorkerLoopTests {

    /// A thread-safe counter.
    private final class Tally: Sendable {
        private let value = Atomic<Int>(0)

        func increment() { value.add(1, ordering: .relaxed) }

        func set(_ newValue: Int) { value.store(newValue, ordering: .relaxed) }

        var count: Int { value.load(ordering: .relaxed) }
    }

    /// A condition that counts its evaluations, signals each one, and is satisfied.
    private final class EvaluationProbe: Condition, @unchecked Sendable {
        // @unchecked Sendable: the semaphore and the atomic are thread-safe; the superclass guards its own state.

        /// Signalled at each evaluation, before completing.
        let evaluated = DispatchSemaphore(value: 0)
        private let evaluations = Atomic<Int>(0)

        var evaluateCount: Int { evaluations.load(ordering: .relaxed) }

        override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
            evaluations.add(1, ordering: .relaxed)
            evaluated.signal()
            completion(.success(true))
        }
    }

    /// A procedure that signals `started`, then blocks until `release` is signalled (or, if the test broke,
    /// until twice ``hangTimeout``, so the test's own waits time out first and say what was missing), then
    /// finishes.
    private static func blocker(
        _ name: String, started: DispatchSemaphore, release: DispatchSemaphore
    ) -> HookProcedure {
        HookProcedure(name: name) { procedure in
            started.signal()
            _ = release.wait(timeout: .now() + hangTimeout * 2)
            procedure.finish()
        }
    }

    @Test func moreBlockingProceduresThanCoresDoNotHoldUpALaterProcedure() {
        let blockerCount = max(4, ProcessInfo.processInfo.activeProcessorCount * 2)
        let queue = ProcedureQueue()
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blockers = (0..<blockerCount).map { Self.blocker("Blocker\($0)", started: started, release: release) }
        queue.add(procedures: blockers)
        var released = false
        defer {
            // If the test gave up early, let the blockers go so no thread stays blocked after it.
            if !released { for _ in blockers { release.signal() } }
        }
        for index in 0..<blockerCount {
            guard waitFor(started, "blocker \(index) to start") else { return }
        }

        let ran = DispatchSemaphore(value: 0)
        let later = HookProcedure(name: "Later") { procedure in
            ran.signal()
            procedure.finish()
        }
        queue.add(procedure: later)
        let laterRan = waitFor(ran, "the later procedure to run while every blocker holds its thread")
        #expect(laterRan)
        #expect(blockers.allSatisfy { !$0.isFinished }, "a blocker finished before it was released")

        for _ in blockers { release.signal() }
        released = true
        #expect(ProcedureWaiter.wait(for: blockers + [later], timeout: hangTimeout))
        #expect(waitUntilEmpty(queue))
        #expect(blockers.allSatisfy { $0.executeCount == 1 })
        #expect(later.executeCount == 1)
    }

    /// A loop runs at most ``WorkerLoop/batchLimit`` operations per dispatched block, then re-dispatches itself
    /// behind whatever else is waiting on the serial queue.
    ///
    /// The order is made deterministic by suspending the serial dispatch queue while the procedure queue is
    /// resumed and the probe block is dispatched: the serial queue then holds the first loop, then the probe. The
    /// first loop dispatches a second one as it starts (behind the probe), runs one batch and re-dispatches
    /// itself (behind the probe too), so the probe runs after at most one batch, whatever the thread timing.
    @Test func loopsYieldASerialUnderlyingQueueBetweenBatches() {
        let total = 600
        #expect(total > WorkerLoop.batchLimit * 2)
        let serial = DispatchQueue(label: "WorkerLoopTests.serial")
        let queue = ProcedureQueue(underlyingQueue: serial)
        let executed = Tally()
        queue.isSuspended = true
        let procedures = (0..<total).map { _ in BlockProcedure { executed.increment() } }
        queue.add(procedures: procedures)
        #expect(executed.count == 0)

        serial.suspend()
        queue.isSuspended = false
        let probed = DispatchSemaphore(value: 0)
        let executedWhenProbed = Tally()
        serial.async {
            executedWhenProbed.set(executed.count)
            probed.signal()
        }
        serial.resume()

        guard waitFor(probed, "the block dispatched on the serial queue to run") else { return }
        #expect(executedWhenProbed.count > 0, "the probe ran before the first loop, so it proves nothing")
        #expect(executedWhenProbed.count < total, "the loops ran every procedure before yielding the serial queue")
        #expect(executedWhenProbed.count <= WorkerLoop.batchLimit)
        #expect(waitUntilEmpty(queue))
        #expect(executed.count == total)
        #expect(procedures.allSatisfy { $0.isFinished })
    }

    @Test func conditionsAreEvaluatedWhileNoSlotIsFree() {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 1)
        let started = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let blocker = Self.blocker("Blocker", started: started, release: release)
        queue.add(procedure: blocker)
        var released = false
        defer {
            // If the test gave up early, let the blocker go so no thread stays blocked after it.
            if !released { release.signal() }
        }
        guard waitFor(started, "the blocker to start") else { return }

        let probe = EvaluationProbe()
        let conditioned = TestProcedure(name: "Conditioned")
        conditioned.add(condition: probe)
        queue.add(procedure: conditioned)
        let evaluated = waitFor(probe.evaluated, "the condition to be evaluated while the blocker holds the slot")
        #expect(evaluated)
        #expect(!blocker.isFinished, "the blocker finished before it was released")
        #expect(!conditioned.didExecute, "the conditioned procedure ran although the only slot was taken")

        release.signal()
        released = true
        #expect(ProcedureWaiter.wait(for: [blocker, conditioned], timeout: hangTimeout))
        #expect(probe.evaluateCount == 1)
        #expect(conditioned.executeCount == 1)
        PKExpectProcedureFinished(conditioned)
    }

    @Test func manyProceduresWithConditionsEachRunExactlyOnce() {
        let count = 2000
        let queue = ProcedureQueue()
        let probes = (0..<count).map { _ in EvaluationProbe() }
        let procedures = probes.enumerated().map { index, probe in
            let procedure = TestProcedure(name: "P\(index)")
            procedure.add(condition: probe)
            return procedure
        }
        queue.add(procedures: procedures)
        #expect(ProcedureWaiter.wait(for: procedures, timeout: 60))
        #expect(waitUntilEmpty(queue, timeout: 60))
        let notOnce = procedures.indices.filter { procedures[$0].executeCount != 1 || probes[$0].evaluateCount != 1 }
        #expect(notOnce.count == 0, "not executed or evaluated exactly once: \(notOnce.prefix(10).map { "P\($0)" })")
        #expect(procedures.allSatisfy { !$0.isCancelled && $0.isFinished })
    }
}
