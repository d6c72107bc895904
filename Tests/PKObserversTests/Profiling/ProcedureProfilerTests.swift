import Dispatch
import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// ProcedureProfiler (BEHAVIOUR §8.3): what it records, what it nests, and when it reports.
struct ProcedureProfilerTests {

    let queue = ProcedureQueue()

    // MARK: - Times

    @Test func attachedStartedAndFinishedFollowEachOtherFromTheProfilersCreation() throws {
        // §8.3 [T]: attached > 0, started ≥ attached, finished ≥ started (on the real, monotonic clock).
        let collector = ProfileCollector()
        let procedure = TestProcedure()
        procedure.addObserver(ProcedureProfiler(collector))
        queue.add(procedure: procedure)
        let results = collector.waitForResults()
        let result = try #require(results.first)
        let started = result.started
        #expect(result.didExecute)
        let finished = try #require(result.finished)
        #expect(results.count == 1)
        #expect(result.attached > 0)
        #expect(started >= result.attached)
        #expect(finished >= started)
        #expect(result.cancelled == nil)
        #expect(result.identity == procedure.identity)
    }

    @Test func timesAreReadFromTheInjectedClockRelativeToTheProfilersCreation() {
        let start = Date(timeIntervalSinceReferenceDate: 1000)
        let clock = ManualClock(now: start)
        let collector = ProfileCollector()
        let procedure = ClosureProcedure { _ in clock.advance(by: 4) }
        // Added before the profiler, so it runs first in the WillExecute event.
        procedure.addWillExecuteBlockObserver { _, _ in clock.advance(by: 2) }
        let profiler = ProcedureProfiler(collector, clock: clock)
        clock.advance(by: 1)
        procedure.addObserver(profiler)
        queue.add(procedure: procedure)
        let result = collector.waitForResults().first
        #expect(result?.created == 1000)
        #expect(result?.attached == 1)
        #expect(result?.started == 3)
        #expect(result?.finished == 7)
        #expect(result?.cancelled == nil)
    }

    @Test func cancellationIsRecorded() {
        // §8.3 [Q]: ProcedureKit declared `cancelled` but never recorded it.
        let clock = ManualClock()
        let collector = ProfileCollector()
        let procedure = ClosureProcedure { procedure in
            clock.advance(by: 2)
            procedure.cancel()
            clock.advance(by: 3)  // DidCancel runs after execute() returns, so at 5
        }
        procedure.addObserver(ProcedureProfiler(collector, clock: clock))
        queue.add(procedure: procedure)
        let result = collector.waitForResults().first
        #expect(result?.started == 0)
        #expect(result?.cancelled == 5)
        #expect(result?.finished == 5)
    }

    @Test func aProcedureCancelledBeforeItStartsIsReportedAsNotExecutedStartingWhenItFinished() {
        let clock = ManualClock()
        let collector = ProfileCollector()
        let procedure = TestProcedure()
        procedure.addObserver(ProcedureProfiler(collector, clock: clock))
        clock.advance(by: 1)
        procedure.cancel()
        clock.advance(by: 1)
        queue.add(procedure: procedure)
        let result = collector.waitForResults().first
        #expect(!procedure.didExecute)
        #expect(result?.didExecute == false)
        #expect(result?.started == 2)
        #expect(result?.cancelled == 1)
        #expect(result?.finished == 2)
    }

    // MARK: - Children

    @Test func aProcedureThatProducesOneChildReportsOneNestedChild() {
        // §8.3 [T]
        let collector = ProfileCollector()
        let child = TestProcedure(name: "Child")
        let producer = TestProcedure(name: "Producer", produced: child)
        producer.addObserver(ProcedureProfiler(collector))
        queue.add(procedure: producer)
        let result = collector.waitForResults().first
        #expect(result?.identity == producer.identity)
        #expect(result?.children.map(\.identity) == [child.identity])
        #expect(result?.children.first?.finished != nil)
        #expect(result?.children.first?.children.isEmpty == true)
    }

    @Test func aGroupWithTwoChildrenReportsTwoNestedChildren() {
        // §8.3 [T]
        let collector = ProfileCollector()
        let children = [TestProcedure(name: "First"), TestProcedure(name: "Second")]
        let group = GroupProcedure(operations: children)
        group.addObserver(ProcedureProfiler(collector))
        queue.add(procedure: group)
        let result = collector.waitForResults().first
        #expect(result?.children.count == 2)
        #expect(Set(result?.children.map(\.identity) ?? []) == Set(children.map(\.identity)))
        // Each child is timed on its own profiler, created as the group was about to add it.
        for child in result?.children ?? [] {
            #expect(child.created >= result?.created ?? .infinity)
            #expect((child.finished ?? -1) >= child.started)
        }
    }

    @Test func nestedGroupsNestTheirResults() {
        let collector = ProfileCollector()
        let inner = GroupProcedure(operations: [TestProcedure(name: "Leaf")])
        inner.name = "Inner"
        let outer = GroupProcedure(operations: [inner, TestProcedure(name: "Sibling")])
        outer.addObserver(ProcedureProfiler(collector))
        queue.add(procedure: outer)
        let result = collector.waitForResults().first
        let innerResult = result?.children.first { $0.identity == inner.identity }
        #expect(result?.children.count == 2)
        #expect(innerResult?.children.map { $0.identity.name } == ["Leaf"])
    }

    @Test func theResultWaitsForAChildThatFinishesAfterItsParent() {
        let collector = ProfileCollector()
        let gate = DispatchSemaphore(value: 0)
        let child = ClosureProcedure("Late child") { _ in gate.wait() }
        let producer = TestProcedure(name: "Producer", produced: child)
        producer.addObserver(ProcedureProfiler(collector))
        queue.add(procedure: producer)
        waitForAll(producer)
        #expect(collector.received.isEmpty)
        gate.signal()
        let results = collector.waitForResults()
        #expect(results.count == 1)
        #expect(results.first?.children.first?.identity == child.identity)
        #expect(child.isFinished)
    }

    // MARK: - Reporting

    @Test func everyReporterGetsTheResultOnce() {
        let first = ProfileCollector()
        let second = ProfileCollector()
        let procedure = TestProcedure()
        procedure.addObserver(ProcedureProfiler(reporters: [first, second]))
        queue.add(procedure: procedure)
        #expect(first.waitForResults().count == 1)
        #expect(second.waitForResults().count == 1)
        waitForAll(procedure)
        #expect(first.received.count == 1)
        #expect(first.received == second.received)
    }

    @Test func aProfilerAttachedToASecondProcedureProfilesOnlyTheFirst() {
        let collector = ProfileCollector()
        let profiler = ProcedureProfiler(collector)
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        let writer = TestableLogWriter()
        GlobalLogSettings.with(writer: writer) {
            first.addObserver(profiler)
            second.addObserver(profiler)
        }
        queue.add(procedures: [first, second])
        waitForAll(first, second)
        let results = collector.waitForResults()
        #expect(results.map(\.identity) == [first.identity])
        #expect(writer.entries.contains { $0.subsystem == "Second" && $0.severity == .warning })
    }

    @Test func theProfilerDoesNotKeepProceduresAlive() async {
        let leaks = LeakCheck()
        let collector = ProfileCollector()
        do {
            let child = TestProcedure(name: "Child")
            let group = GroupProcedure(operations: [child, TestProcedure(name: "Other")])
            let profiler = ProcedureProfiler(collector)
            leaks.track([child, group, profiler])
            group.addObserver(profiler)
            queue.add(procedure: group)
            await group.waitUntilFinished()
        }
        #expect(collector.waitForResults().count == 1)
        #expect(await leaks.unreleased() == [])
    }

    // MARK: - ProcedureKit's conformances

    @Test func aProfilerIsEqualOnlyToItselfAndIdentifiedByIdentity() {
        let first = ProcedureProfiler(ProfileCollector())
        let second = ProcedureProfiler(ProfileCollector())
        #expect(first == first)
        #expect(first != second)
        #expect(first.id != second.id)
    }

    @Test func aResultHandedToAProfilerAsAReporterIsNestedAmongItsChildren() {
        let clock = ManualClock()
        let collector = ProfileCollector()
        let profiler = ProcedureProfiler(collector, clock: clock)
        let procedure = TestProcedure()
        procedure.addObserver(profiler)  // recording from here on
        let outsider = ProfileResult(
            identity: TestProcedure(name: "Outsider").identity, created: 1, attached: 0, started: nil, cancelled: nil,
            finished: 1, children: [])
        profiler.finishedProfiling(withResult: outsider)
        queue.add(procedure: procedure)
        let results = collector.waitForResults()
        #expect(results.first?.children.map(\.identity) == [outsider.identity])
        #expect(outsider.didExecute == false)
        #expect(outsider.started == 1)
        // After the report, another result changes nothing and does not trap.
        profiler.finishedProfiling(withResult: outsider)
        #expect(collector.waitForResults().count == 1)
    }
}
