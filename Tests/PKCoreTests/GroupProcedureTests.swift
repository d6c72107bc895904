import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

/// A group that records what its `child(_:willFinishWithErrors:)` override saw, optionally without calling super.
final class RecordingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `seen` is guarded by its PKMutex.
    let callsSuper: Bool
    let seen = PKMutex<[(String, Int)]>([])

    init(operations: [Operation], callsSuper: Bool = true) {
        self.callsSuper = callsSuper
        super.init(operations: operations)
    }

    override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        seen.withLock { $0.append((child.procedureName, errors.count)) }
        if callsSuper { super.child(child, willFinishWithErrors: errors) }
    }
}

struct GroupProcedureTests {

    let queue = ProcedureQueue()

    @Test func everyChildFinishesBeforeTheGroupsWillFinishObservers() {
        // BEHAVIOUR §13.16
        let children = (0..<5).map { TestProcedure(name: "Child\($0)", delay: 0.001 * Double($0)) }
        let group = GroupProcedure(operations: children)
        let allFinished = PKMutex<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _, _ in
            allFinished.withLock { $0 = children.allSatisfy(\.isFinished) }
        }
        queue.add(procedure: group)
        waitForAll(group)
        #expect(allFinished.withLock { $0 } == true)
        PKExpectProcedureFinished(group)
    }

    @Test func aChildAddedWhileAnotherRunsIsWaitedFor() {
        // BEHAVIOUR §13.17
        let gate = DispatchSemaphore(value: 0)
        let first = BlockProcedure { gate.wait() }
        let late = TestProcedure(name: "Late")
        let group = GroupProcedure(operations: [first])
        first.addWillExecuteBlockObserver { _, _ in
            group.addChild(late)
            gate.signal()
        }
        queue.add(procedure: group)
        waitForAll(group)
        #expect(late.isFinished)
        #expect(late.didExecute)
        PKExpectProcedureFinished(group)
    }

    @Test func aGroupCancelledBeforeEnqueueStillExecutesAndCancelsItsChildren() {
        // BEHAVIOUR §13.30
        let children = (0..<3).map { _ in TestProcedure() }
        let group = GroupProcedure(operations: children)
        let executed = Atomic<Bool>(false)
        group.addWillExecuteBlockObserver { _, _ in executed.store(true, ordering: .relaxed) }
        group.cancel()
        queue.add(procedure: group)
        waitForAll(group)
        let didExecute = executed.load(ordering: .relaxed)
        #expect(didExecute)
        #expect(children.allSatisfy { $0.isCancelled && $0.isFinished && !$0.didExecute })
        #expect(group.isCancelled)
    }

    @Test func cancellingWithAnErrorCancelsChildrenWithParentCancelledAndCollectsNoChildErrors() {
        // BEHAVIOUR §13.31
        let error = TestError()
        let gate = DispatchSemaphore(value: 0)
        let running = BlockProcedure { gate.wait() }
        let waiting = TestProcedure(error: TestError())
        waiting.addDependency(running)
        let group = GroupProcedure(operations: [running, waiting])
        running.addWillExecuteBlockObserver { _, _ in
            group.cancel(with: error)
            gate.signal()
        }
        queue.add(procedure: group)
        waitForAll(group)
        #expect(group.isCancelled)
        #expect(group.errors.count == 1)
        #expect(group.error as? TestError == error)
        let childError = waiting.error as? ProcedureKitError
        #expect(childError?.context == .parentCancelledWithError)
        #expect(childError?.underlyingError as? TestError == error)
    }

    @Test func failingChildrenMakeTheGroupFailWithAllOfTheirErrors() {
        // BEHAVIOUR §13.32
        let errors = (0..<5).map { _ in TestError() }
        let children = errors.map { TestProcedure(error: $0) }
        let group = GroupProcedure(operations: children)
        queue.add(procedure: group)
        waitForAll(group)
        #expect(!group.isCancelled)
        #expect(group.errors.count == 5)
        let groupErrors = group.errors.compactMap { $0 as? TestError }
        #expect(Set(groupErrors.map(\.id)) == Set(errors.map(\.id)))
        for (child, error) in zip(children, errors) { #expect(child.error as? TestError == error) }
    }

    @Test func anOverrideThatSkipsSuperDropsChildErrorsAndIsCalledOncePerChild() {
        // BEHAVIOUR §13.33
        let children = (0..<4).map { TestProcedure(name: "C\($0)", error: TestError()) }
        let group = RecordingGroup(operations: children, callsSuper: false)
        queue.add(procedure: group)
        waitForAll(group)
        PKExpectProcedureFinished(group)
        let seen = group.seen.withLock { $0 }
        #expect(seen.count == 4)
        #expect(Set(seen.map(\.0)) == ["C0", "C1", "C2", "C3"])
    }

    @Test func transformChildErrorBlockChangesWhatTheOverrideReceives() {
        // BEHAVIOUR §13.34
        let replacement = TestError()
        let child = TestProcedure(name: "Replaced", error: TestError())
        let other = TestProcedure(name: "Other", error: TestError())
        let group = RecordingGroup(operations: [child, other])
        group.transformChildErrorBlock = { procedure, errors in
            if procedure.procedureName == "Replaced" { errors = [replacement, replacement] }
        }
        queue.add(procedure: group)
        waitForAll(group)
        let seen = Dictionary(uniqueKeysWithValues: group.seen.withLock { $0 })
        #expect(seen["Replaced"] == 2)
        #expect(seen["Other"] == 1)
        #expect(group.errors.count == 3)
    }

    @Test func aSuspendedGroupStartsNoChildUntilResumed() {
        // BEHAVIOUR §13.35
        let child = TestProcedure()
        let group = GroupProcedure(operations: [child])
        group.isSuspended = true
        let executed = DispatchSemaphore(value: 0)
        group.addDidExecuteBlockObserver { _ in executed.signal() }
        queue.add(procedure: group)
        waitFor(executed, "the group to execute")
        #expect(!child.didExecute)
        #expect(!group.isFinished)
        group.isSuspended = false
        waitForAll(group)
        #expect(child.didExecute)
    }

    @Test func anOperationProducedByAChildBecomesAChild() {
        // BEHAVIOUR §13.36
        let produced = TestProcedure(name: "Produced", delay: 0.01)
        let child = TestProcedure(name: "Child")
        child.addWillExecuteBlockObserver { procedure, pendingExecute in
            try? procedure.produce(operation: produced, before: pendingExecute)
        }
        let group = GroupProcedure(operations: [child])
        let producedFinishedFirst = PKMutex<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _, _ in producedFinishedFirst.withLock { $0 = produced.isFinished } }
        queue.add(procedure: group)
        waitForAll(group)
        #expect(producedFinishedFirst.withLock { $0 } == true)
    }

    @Test func anEmptyGroupFinishesAtOnce() {
        let group = GroupProcedure(operations: [])
        queue.add(procedure: group)
        waitForAll(group)
        PKExpectProcedureFinished(group)
    }

    @Test func plainOperationsAreChildrenToo() {
        let ran = Atomic<Int>(0)
        let group = GroupProcedure(operations: BlockOperation { ran.add(1, ordering: .relaxed) }, TestProcedure())
        queue.add(procedure: group)
        waitForAll(group)
        #expect(ran.load(ordering: .relaxed) == 1)
        PKExpectProcedureFinished(group)
    }

    @Test func maxConcurrentOperationCountIsForwardedToTheChildren() {
        let tracker = ConcurrencyTracker()
        // Each child finishes from another thread after a hop, so children would overlap without the limit.
        let children = (0..<20).map { _ in
            TestProcedure(delay: 0.001).tracking(tracker)
        }
        let group = GroupProcedure(operations: children)
        group.maxConcurrentOperationCount = 1
        queue.add(procedure: group)
        waitForAll(group)
        #expect(tracker.entered == 20)
        #expect(tracker.maxConcurrent == 1)
    }

    @Test func childrenAddedAfterTheGroupFinishedAreRefused() {
        let group = GroupProcedure(operations: [TestProcedure()])
        queue.add(procedure: group)
        waitForAll(group)
        let late = TestProcedure()
        group.addChild(late)
        #expect(!late.isEnqueued)
    }

    @Test func finishedChildrenAreReleasedWhileTheGroupRuns() async {
        let leaks = LeakCheck()
        let gate = DispatchSemaphore(value: 0)
        let blocker = BlockProcedure { gate.wait() }
        let group: GroupProcedure
        do {
            let quick = (0..<50).map { _ in TestProcedure() }
            leaks.track(quick)
            group = GroupProcedure(operations: quick + [blocker])
        }
        queue.add(procedure: group)
        // While the blocker still runs, the finished quick children must already be gone.
        await PKExpectReleased(leaks)
        gate.signal()
        waitForAll(group)
    }

    @Test func aFinishedGroupIsReleasedWithItsChildren() async {
        let leaks = LeakCheck()
        do {
            let children = (0..<10).map { _ in TestProcedure() }
            let group = GroupProcedure(operations: children)
            leaks.track(children)
            leaks.track(group)
            queue.add(procedure: group)
            waitForAll(group)
        }
        await PKExpectReleased(leaks)
    }

    @Test func aCancelledChildDoesNotCancelTheGroup() {
        let cancelled = TestProcedure(name: "Cancelled")
        cancelled.cancel()
        let sibling = TestProcedure(name: "Sibling")
        let group = GroupProcedure(operations: [cancelled, sibling])
        queue.add(procedure: group)
        waitForAll(group)
        #expect(!group.isCancelled)
        #expect(sibling.didExecute)
        #expect(!cancelled.didExecute)
        PKExpectProcedureFinished(group)
    }

    @Test func nestedGroupsPassChildErrorsUpAndFinishInsideOut() {
        let error = TestError()
        let leaf = TestProcedure(name: "Leaf", error: error)
        let inner = GroupProcedure(operations: [leaf, TestProcedure()])
        let outer = GroupProcedure(operations: [inner, TestProcedure()])
        let innerFinishedFirst = PKMutex<Bool?>(nil)
        outer.addWillFinishBlockObserver { _, _, _ in innerFinishedFirst.withLock { $0 = inner.isFinished } }
        queue.add(procedure: outer)
        waitForAll(outer)
        #expect(innerFinishedFirst.withLock { $0 } == true)
        #expect(inner.errors.count == 1)
        #expect(outer.errors.count == 1)
        #expect(outer.error as? TestError == error)
    }

    @Test func cancellingTheOuterGroupReachesGrandchildren() {
        let gate = DispatchSemaphore(value: 0)
        let grandchild = BlockProcedure { gate.wait() }
        let waiting = TestProcedure(name: "Waiting")
        waiting.addDependency(grandchild)
        let inner = GroupProcedure(operations: [grandchild, waiting])
        let outer = GroupProcedure(operations: [inner])
        grandchild.addWillExecuteBlockObserver { _, _ in
            outer.cancel()
            gate.signal()
        }
        queue.add(procedure: outer)
        waitForAll(outer)
        #expect(inner.isCancelled)
        #expect(waiting.isCancelled)
        #expect(!waiting.didExecute)
        #expect(outer.isCancelled)
    }
}

extension TestProcedure {
    /// Records the procedure in `tracker` from when it executes until it finishes.
    fileprivate func tracking(_ tracker: ConcurrencyTracker) -> Self {
        addWillExecuteBlockObserver { _, _ in tracker.enter() }
        addWillFinishBlockObserver { _, _, _ in tracker.leave() }
        return self
    }
}
