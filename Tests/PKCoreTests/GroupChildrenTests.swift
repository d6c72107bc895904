import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

/// A group that records its `groupWillAdd(child:)` calls in a trail shared with its observers.
final class AddRecordingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `trail` is immutable and guards its list with a Mutex.
    let trail: Trail

    init(operations: [Operation], trail: Trail) {
        self.trail = trail
        super.init(operations: operations)
    }

    override func groupWillAdd(child: Operation) {
        trail.append("groupWillAdd \(child.name ?? "?")")
    }
}

/// How a group takes its children: when it executes, through its own event context, and never silently.
struct GroupChildrenTests {

    let queue = ProcedureQueue()

    @Test func aGroupThatNeverRunsDoesNotStealItsChildren() {
        let child = TestProcedure(name: "Child")
        _ = GroupProcedure(operations: [child])
        let group = GroupProcedure(operations: [child])
        queue.add(procedure: group)
        waitForAll(group)
        PKExpectProcedureFinished(group)
        #expect(child.didExecute)
        #expect(child.isFinished)
    }

    @Test func aChildAlreadyOnAnotherQueueFailsTheGroupWithChildNotAdded() {
        let gate = DispatchSemaphore(value: 0)
        let child = BlockProcedure { gate.wait() }
        child.name = "Taken"
        let other = ProcedureQueue()
        let group = GroupProcedure(operations: [child, TestProcedure(name: "Sibling")])
        other.add(procedure: child)
        queue.add(procedure: group)
        waitForAll(group)
        gate.signal()
        waitForAll(child)
        PKExpectProcedureFinished(group, withErrors: true)
        let error = group.errors.first as? ProcedureKitError
        #expect(error?.context == .childNotAdded("Taken"))
        #expect(group.errors.count == 1)
    }

    @Test func aChildGivenToTwoGroupsRunsInTheFirstAndFailsTheSecond() {
        let child = TestProcedure(name: "Shared")
        let first = GroupProcedure(operations: [child])
        let second = GroupProcedure(operations: [child])
        second.addDependency(first)
        queue.add(procedures: first, second)
        waitForAll(first, second)
        #expect(child.executeCount == 1)
        PKExpectProcedureFinished(first)
        #expect((second.errors.first as? ProcedureKitError)?.context == .childNotAdded("Shared"))
    }

    @Test func observersAddedAfterInitSeeTheInitialChildrenBeingAdded() {
        let trail = Trail()
        let children = ["A", "B"].map { TestProcedure(name: $0) }
        let group = AddRecordingGroup(operations: children, trail: trail)
        group.addWillAddOperationBlockObserver { _, operation in
            trail.append("willAdd \(operation.name ?? "?") enqueued: \((operation as? Procedure)?.isEnqueued == true)")
        }
        group.addDidAddOperationBlockObserver { _, operation in
            trail.append("didAdd \(operation.name ?? "?") enqueued: \((operation as? Procedure)?.isEnqueued == true)")
        }
        queue.add(procedure: group)
        waitForAll(group)
        #expect(
            trail.entries == [
                "groupWillAdd A", "willAdd A enqueued: false", "didAdd A enqueued: true",
                "groupWillAdd B", "willAdd B enqueued: false", "didAdd B enqueued: true",
            ])
        PKExpectProcedureFinished(group)
    }

    @Test func addChildAndProducedOperationsGoThroughTheGroupsAddObservers() {
        let trail = Trail()
        let produced = TestProcedure(name: "Produced")
        let producer = TestProcedure(name: "Producer", produced: produced)
        let late = TestProcedure(name: "Late")
        let group = AddRecordingGroup(operations: [producer], trail: trail)
        group.addDidAddOperationBlockObserver { group, operation in
            trail.append("didAdd \(operation.name ?? "?")")
            if operation === producer { group.addChild(late) }
        }
        queue.add(procedure: group)
        waitForAll(group)
        let entries = trail.entries
        #expect(
            entries.filter { $0.hasPrefix("didAdd") }.sorted() == ["didAdd Late", "didAdd Produced", "didAdd Producer"])
        #expect(entries.filter { $0.hasPrefix("groupWillAdd") }.count == 3)
        #expect(produced.isFinished && late.isFinished)
        PKExpectProcedureFinished(group)
    }

    @Test func aHeldWillAddTokenHoldsTheChildBack() {
        let release = DispatchSemaphore(value: 0)
        let child = TestProcedure(name: "Held")
        let group = GroupProcedure(operations: [child])
        let tokenHolder = TokenHoldingObserver(release: release)
        group.addObserver(tokenHolder)
        queue.add(procedure: group)
        #expect(tokenHolder.waitUntilHolding())
        #expect(!child.isEnqueued)
        release.signal()
        waitForAll(group)
        #expect(child.didExecute)
    }

    @Test func childrenAreListedBeforeTheGroupExecutes() {
        let children = (0..<3).map { TestProcedure(name: "C\($0)") }
        let group = GroupProcedure(operations: children)
        let late = TestProcedure(name: "Late")
        group.addChild(late)
        #expect(group.children.map { $0.name } == ["C0", "C1", "C2", "Late"])
    }

    @Test func cancellingAGroupBeforeItExecutesCancelsTheChildrenItHolds() {
        let children = (0..<3).map { TestProcedure(name: "C\($0)") }
        let group = GroupProcedure(operations: children)
        group.cancel(with: TestError())
        let late = TestProcedure(name: "Late")
        group.addChild(late)
        let allCancelled = (children + [late]).allSatisfy { $0.isCancelled }
        #expect(allCancelled)
        let error = children[0].errors.first as? ProcedureKitError
        #expect(error?.context == .parentCancelledWithError)
        queue.add(procedure: group)
        waitForAll(group)
        let allSkipped = (children + [late]).allSatisfy { $0.isFinished && !$0.didExecute }
        #expect(allSkipped)
    }

    @Test func transformChildErrorBlockNeverRunsConcurrently() {
        let tracker = ConcurrencyTracker()
        let children = (0..<40).map { _ in TestProcedure(error: TestError()) }
        let group = GroupProcedure(operations: children)
        // Unguarded state, as ProcedureKit code mutated it: safe only if the block is serialized.
        nonisolated(unsafe) var seen = 0
        group.transformChildErrorBlock = { _, errors in
            tracker.enter()
            for _ in 0..<2_000 { _ = Atomic<Int>(0).load(ordering: .relaxed) }
            seen += 1
            errors = errors.map { $0 }
            tracker.leave()
        }
        queue.add(procedure: group)
        waitForAll(group)
        #expect(tracker.maxConcurrent == 1)
        #expect(tracker.entered == 40)
        #expect(group.errors.count == 40)
    }

    @Test func finishingAGroupFromOutsideIsIgnoredWithAWarning() {
        let gate = DispatchSemaphore(value: 0)
        let child = BlockProcedure { gate.wait() }
        let group = GroupProcedure(operations: [child])
        let writer = TestableLogWriter()
        let executing = DispatchSemaphore(value: 0)
        group.addDidExecuteBlockObserver { _ in executing.signal() }
        GlobalLogSettings.with(enabled: true, severity: .warning, writer: writer) {
            queue.add(procedure: group)
            waitFor(executing, "the group to execute")
            group.finish(with: TestError())
            #expect(!group.isFinished)
        }
        gate.signal()
        waitForAll(group)
        PKExpectProcedureFinished(group)
        #expect(child.isFinished)
        #expect(writer.messages.contains { $0.contains("finishes by itself") })
    }

    /// A child that finishes as soon as it is cancelled (a delay) must not release a sibling waiting for it before
    /// that sibling is cancelled too: cancelling a group cancels all of its children before any of them reacts.
    @Test(arguments: 0..<50)
    func cancellingAGroupCancelsEveryChildBeforeAnyReacts(round: Int) {
        let clock = ManualClock()
        let wait = DelayProcedure(by: 10, clock: clock)
        let dependent = TestProcedure(name: "Dependent")
        dependent.addDependency(wait)
        let group = GroupProcedure(operations: [wait, dependent])
        queue.add(procedure: group)
        #expect(clock.waitForScheduledActions(count: 1))
        group.cancel()
        waitForAll(group)
        #expect(!dependent.didExecute)
        #expect(dependent.isCancelled)
    }

    @Test func theGroupsDispatchQueueRunsItsChildren() {
        let dispatchQueue = DispatchQueue(label: "GroupChildrenTests.children")
        let ranOnIt = Atomic<Bool>(false)
        let key = DispatchSpecificKey<Int>()
        dispatchQueue.setSpecific(key: key, value: 7)
        let child = BlockProcedure { ranOnIt.store(DispatchQueue.getSpecific(key: key) == 7, ordering: .relaxed) }
        let group = GroupProcedure(dispatchQueue: dispatchQueue, operations: [child])
        queue.add(procedure: group)
        waitForAll(group)
        let ran = ranOnIt.load(ordering: .relaxed)
        #expect(ran)
    }
}

/// Holds the first WillAddOperation token until `release` is signalled, on another thread.
final class TokenHoldingObserver: ProcedureObserver, Sendable {
    let release: DispatchSemaphore
    private let holding = DispatchSemaphore(value: 0)

    init(release: DispatchSemaphore) {
        self.release = release
    }

    func procedure(
        _ procedure: Procedure, willAdd newOperation: Operation, pendingAddOperation: PendingAddOperationEvent
    ) {
        DispatchQueue.global().async { [release, holding] in
            holding.signal()
            release.wait()
            withExtendedLifetime(pendingAddOperation) {}
        }
    }

    func waitUntilHolding() -> Bool {
        holding.wait(timeout: .now() + hangTimeout) == .success
    }
}

/// Observers synchronized with a dispatch queue, and the thread already running that queue.
struct SynchronizedObserverTests {

    @Test func anObserverSynchronizedWithTheQueueFinishingItRunsInline() {
        let serial = DispatchQueue(label: "SynchronizedObserverTests.serial")
        let procedure = HookProcedure(disableAutomaticFinishing: true) { _ in }
        let ranOnSerial = Atomic<Bool>(false)
        let key = DispatchSpecificKey<Int>()
        serial.setSpecific(key: key, value: 1)
        procedure.addDidFinishBlockObserver(synchronizedWith: serial) { _, _ in
            ranOnSerial.store(DispatchQueue.getSpecific(key: key) == 1, ordering: .relaxed)
        }
        let queue = ProcedureQueue()
        let executing = DispatchSemaphore(value: 0)
        procedure.addDidExecuteBlockObserver { _ in executing.signal() }
        queue.add(procedure: procedure)
        waitFor(executing, "execute")
        // Before the fix this was a dispatch_sync onto the current queue: a deadlock (or a trap).
        serial.sync { procedure.finish() }
        waitForAll(procedure)
        let ran = ranOnSerial.load(ordering: .relaxed)
        #expect(ran)
    }

    @Test func anObserverSynchronizedWithAQueueTargetingTheCurrentOneRunsInline() {
        let target = DispatchQueue(label: "SynchronizedObserverTests.target")
        let procedure = HookProcedure(disableAutomaticFinishing: true) { _ in }
        let calls = Atomic<Int>(0)
        procedure.addWillFinishBlockObserver(synchronizedWith: target) { _, _, _ in
            calls.add(1, ordering: .relaxed)
        }
        let queue = ProcedureQueue()
        let executing = DispatchSemaphore(value: 0)
        procedure.addDidExecuteBlockObserver { _ in executing.signal() }
        queue.add(procedure: procedure)
        waitFor(executing, "execute")
        // Work on `inner` runs on `target`: a `sync` onto `target` from there would never return.
        let inner = DispatchQueue(label: "SynchronizedObserverTests.inner", target: target)
        inner.sync { procedure.finish() }
        waitForAll(procedure)
        let count = calls.load(ordering: .relaxed)
        #expect(count == 1)
    }

    @Test func anObserverSynchronizedWithABusyQueueWaitsForIt() {
        let serial = DispatchQueue(label: "SynchronizedObserverTests.busy")
        let trail = Trail()
        let procedure = TestProcedure()
        procedure.addDidFinishBlockObserver(synchronizedWith: serial) { _, _ in trail.append("observer") }
        let started = DispatchSemaphore(value: 0)
        let gate = DispatchSemaphore(value: 0)
        serial.async {
            started.signal()
            gate.wait()
            trail.append("queue work")
        }
        started.wait()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        gate.signal()
        waitForAll(procedure)
        serial.sync {}
        #expect(trail.entries == ["queue work", "observer"])
    }
}

/// `Condition.removeDependency(_:)` removes produced dependencies as well as plain ones.
struct ConditionDependencyRemovalTests {

    final class Plain: Condition, @unchecked Sendable {
        // @unchecked Sendable: no state of its own.
        override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
            completion(.success(true))
        }
    }

    @Test func removeDependencyRemovesAProducedDependency() {
        let condition = Plain()
        let produced = TestProcedure()
        let waited = TestProcedure()
        condition.produceDependency(produced)
        condition.addDependency(waited)
        condition.removeDependency(produced)
        #expect(condition.producedDependencies.isEmpty)
        #expect(condition.dependencies.count == 1)
        condition.removeDependency(waited)
        #expect(condition.dependencies.isEmpty)
    }
}
