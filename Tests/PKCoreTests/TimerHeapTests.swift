import Dispatch
import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// SystemClock's timer heap: one dispatch source for every scheduled action.
@Suite struct TimerHeapTests {

    private func uptime(after duration: Duration) -> UInt64 {
        DispatchTime.now().uptimeNanoseconds + UInt64(duration.components.seconds) * 1_000_000_000
            + UInt64(duration.components.attoseconds / 1_000_000_000)
    }

    @Test func everyActionRunsAndNoneBeforeItsDeadline() {
        let heap = TimerHeap(qos: .default)
        let early = Atomic(0)
        let group = DispatchGroup()
        for index in 0..<200 {
            let deadline = uptime(after: .microseconds((index * 7_919) % 20_000))
            group.enter()
            _ = heap.schedule(deadline: deadline) {
                if DispatchTime.now().uptimeNanoseconds < deadline { early.add(1, ordering: .relaxed) }
                group.leave()
            }
        }
        #expect(group.wait(timeout: .now() + hangTimeout) == .success)
        #expect(early.load(ordering: .relaxed) == 0)
        #expect(heap.count == 0)
    }

    @Test func anActionEarlierThanTheArmedDeadlineRearmsTheSource() {
        let heap = TimerHeap(qos: .default)
        let late = heap.schedule(deadline: uptime(after: .seconds(3_600))) {}
        let ran = DispatchSemaphore(value: 0)
        _ = heap.schedule(deadline: uptime(after: .milliseconds(5))) { ran.signal() }
        #expect(waitFor(ran, "the earlier action"))
        #expect(heap.count == 1)
        late.cancel()
        #expect(heap.count == 0)
    }

    @Test func cancellingRemovesTheEntryAtOnceAndItNeverRuns() {
        let heap = TimerHeap(qos: .default)
        let runs = Atomic(0)
        // The deadlines leave half a second for scheduling and cancelling a thousand entries: with 20 ms, a run under
        // ThreadSanitizer on a busy machine was still scheduling when the first deadlines came, and 19 ran.
        let base = uptime(after: .milliseconds(500))
        let entries = (0..<1_000).map { index in
            heap.schedule(deadline: base + UInt64(index % 50) * 1_000_000) { runs.add(1, ordering: .relaxed) }
        }
        for entry in entries { entry.cancel() }
        #expect(heap.count == 0)
        let probe = DispatchSemaphore(value: 0)
        _ = heap.schedule(deadline: base + 80 * 1_000_000) { probe.signal() }
        #expect(waitFor(probe, "an action after the cancelled ones' deadlines"))
        #expect(runs.load(ordering: .relaxed) == 0)
    }

    @Test func aHeapReleasedWhileArmedIsNotFiredAfterwards() async {
        let witness = TimerHeap(qos: .default)
        let pastTheDeadline = DispatchSemaphore(value: 0)
        // The source stays armed for the cancelled entry's deadline; with an unowned handler, the process crashed
        // when it came (issue 22).
        let released = LeakCheck()
        do {
            let heap = TimerHeap(qos: .default)
            released.track(heap)
            let entry = heap.schedule(deadline: uptime(after: .milliseconds(20))) {}
            entry.cancel()
        }
        #expect(await released.unreleased() == [])
        // Another heap's action due after the released heap's armed deadline: once it ran, that deadline has passed
        // and the process is still alive.
        _ = witness.schedule(deadline: uptime(after: .milliseconds(40))) { pastTheDeadline.signal() }
        #expect(waitFor(pastTheDeadline, "an action due after the released heap's deadline"))
    }

    @Test func cancellingTwiceOrAfterRunningDoesNothing() {
        let heap = TimerHeap(qos: .default)
        let ran = DispatchSemaphore(value: 0)
        let entry = heap.schedule(deadline: uptime(after: .milliseconds(1))) { ran.signal() }
        #expect(waitFor(ran, "the action"))
        entry.cancel()
        entry.cancel()
        #expect(heap.count == 0)
        #expect(heap.isConsistent)
    }

    @Test func schedulesAndCancelsFromManyThreadsKeepTheHeapOrdered() {
        let heap = TimerHeap(qos: .default)
        let kept = PKMutex<[TimerHeap.Entry]>([])  // a PKMutex, which ThreadSanitizer sees
        DispatchQueue.concurrentPerform(iterations: 8) { lane in
            var mine: [TimerHeap.Entry] = []
            for index in 0..<1_000 {
                let entry = heap.schedule(deadline: uptime(after: .seconds(60 + (index * 31 + lane) % 97))) {}
                if index.isMultiple(of: 2) { entry.cancel() } else { mine.append(entry) }
            }
            kept.withLock { $0 += mine }
        }
        #expect(heap.count == 4_000)
        #expect(heap.isConsistent)
        for entry in kept.withLock({ $0 }) { entry.cancel() }
        #expect(heap.count == 0)
    }

    /// A timeout exists to cut short work that will not stop by itself, which may be CPU-bound work on every core.
    /// Dispatch's global pool gives a queued block no new thread while its threads are running, so an action sent
    /// there would wait for the very work it should stop.
    @Test func anActionRunsWhileEveryPoolThreadSpinsWaitingForIt() {
        let heap = TimerHeap(qos: .default)
        let spinners = ProcessInfo.processInfo.activeProcessorCount + 1
        let started = Atomic(0)
        let stop = Atomic(false)
        let stoppedByAction = Atomic(0)
        let done = DispatchGroup()
        for _ in 0..<spinners {
            DispatchQueue.global().async(group: done) {
                started.add(1, ordering: .relaxed)
                // Capped at the hang timeout, so a failure ends instead of holding the cores.
                let cap = ContinuousClock.now + .seconds(hangTimeout)
                while !stop.load(ordering: .acquiring), ContinuousClock.now < cap {}
                if stop.load(ordering: .acquiring) { stoppedByAction.add(1, ordering: .relaxed) }
            }
        }
        // How many run at once is Dispatch's choice (one, on a loaded two-core machine): the action is due once
        // the first spins.
        while started.load(ordering: .relaxed) == 0 { usleep(100) }
        _ = heap.schedule(deadline: uptime(after: .milliseconds(1))) { stop.store(true, ordering: .releasing) }
        #expect(done.wait(timeout: .now() + hangTimeout * 2) == .success)
        #expect(stoppedByAction.load(ordering: .relaxed) == spinners)
    }

    @Test func aCancelledActionIsReleasedAtOnce() async {
        let heap = TimerHeap(qos: .default)
        let leaks = LeakCheck()
        do {
            let probe = LeakProbe()
            leaks.track(probe)
            let entry = heap.schedule(deadline: uptime(after: .seconds(3_600))) { withExtendedLifetime(probe) {} }
            entry.cancel()
        }
        await PKExpectReleased(leaks)
    }
    // MARK: - Timeouts (the closure-free entries of TimeoutObserver)

    @Test func aTimeoutStartsOnceForOneProcedureAndStopsOnlyForIt() {
        let heap = TimerHeap(qos: .default)
        let timer = ScheduledTimer.timeout(of: .by(3_600), heap: heap)
        let first = BlockProcedure {}
        let second = BlockProcedure {}
        timer.cancel()  // unstarted: left startable
        #expect(!timer.isScheduled)
        #expect(timer.start(for: first, afterSeconds: 3_600))
        #expect(!timer.start(for: second, afterSeconds: 3_600))
        #expect(!timer.start(for: first, afterSeconds: 3_600))
        #expect(timer.isScheduled)
        #expect(heap.count == 1)
        timer.stop(for: second)
        #expect(heap.count == 1)
        timer.stop(for: first)
        #expect(heap.count == 0)
        #expect(!timer.isScheduled)
        timer.stop(for: first)
        #expect(!timer.start(for: first, afterSeconds: 3_600))
        #expect(heap.count == 0)
        #expect(heap.isConsistent)
    }

    @Test func aTimeoutThatFiresCancelsItsProcedureWithTimedOut() {
        let heap = TimerHeap(qos: .default)
        let timer = ScheduledTimer.timeout(of: .by(0.002), heap: heap)
        let procedure = BlockProcedure {}
        let cancelled = DispatchSemaphore(value: 0)
        procedure.addDidCancelBlockObserver { _, _ in cancelled.signal() }
        #expect(timer.start(for: procedure, afterSeconds: 0.002))
        #expect(waitFor(cancelled, "the timeout's cancel"))
        #expect(procedure.isCancelled)
        #expect(
            procedure.errors.contains { error in
                guard let error = error as? ProcedureKitError, case .timedOut(let delay) = error.context else {
                    return false
                }
                return delay == .by(0.002)
            })
        #expect(heap.count == 0)
        timer.stop(for: procedure)
        #expect(heap.count == 0)
    }

    @Test func aTimeoutDoesNotCancelAFinishedProcedure() {
        let heap = TimerHeap(qos: .default)
        let timer = ScheduledTimer.timeout(of: .by(0.001), heap: heap)
        let procedure = BlockProcedure {}
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        queue.waitUntilAllOperationsAreFinished()
        #expect(timer.start(for: procedure, afterSeconds: 0.001))
        let probe = DispatchSemaphore(value: 0)
        _ = heap.schedule(deadline: uptime(after: .milliseconds(20))) { probe.signal() }
        #expect(waitFor(probe, "an action after the timeout's deadline"))
        #expect(!procedure.isCancelled)
        #expect(procedure.errors.isEmpty)
    }

    @Test func aStoppedTimeoutReleasesItsProcedureAtOnce() async {
        let heap = TimerHeap(qos: .default)
        let timer = ScheduledTimer.timeout(of: .by(3_600), heap: heap)
        let leaks = LeakCheck()
        do {
            let procedure = BlockProcedure {}
            leaks.track(procedure)
            #expect(timer.start(for: procedure, afterSeconds: 3_600))
            timer.stop(for: procedure)
        }
        await PKExpectReleased(leaks)
        withExtendedLifetime(timer) {}
    }

    @Test func onlyTheSystemClockGetsATimeoutEntry() {
        #expect(ScheduledTimer.timeout(of: .by(1), clock: SystemClock()) != nil)
        #expect(ScheduledTimer.timeout(of: .by(1), clock: SystemClock(qualityOfService: .utility)) != nil)
        #expect(ScheduledTimer.timeout(of: .by(1), clock: ManualClock()) == nil)
    }
}
