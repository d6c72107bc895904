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
        let entries = (0..<1_000).map { index in
            heap.schedule(deadline: uptime(after: .milliseconds(20 + index % 50))) { runs.add(1, ordering: .relaxed) }
        }
        for entry in entries { entry.cancel() }
        #expect(heap.count == 0)
        let probe = DispatchSemaphore(value: 0)
        _ = heap.schedule(deadline: uptime(after: .milliseconds(100))) { probe.signal() }
        #expect(waitFor(probe, "an action after the cancelled ones' deadlines"))
        #expect(runs.load(ordering: .relaxed) == 0)
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
        let kept = Mutex<[TimerHeap.Entry]>([])
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
}
