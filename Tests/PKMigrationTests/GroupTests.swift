import Foundation
import PKConditions
import PKTesting
import XCTest

private let groupQueueKey = DispatchSpecificKey<String>()

/// A group that records the errors its `child(_:willFinishWithErrors:)` hook receives, and can call `super` with
/// them, with none, or not at all.
private final class ChildErrorsRecordingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `received` is a Protector; `forward` is immutable; the superclass guards the rest.

    enum Forward {
        case unchanged
        case nothing
        case noErrors
    }

    let received = Protector<[(name: String, errors: [TestError])]>([])
    private let forward: Forward

    init(operations: [Operation], forward: Forward) {
        self.forward = forward
        super.init(operations: operations)
    }

    override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        received.append((child.procedureName, errors.compactMap { $0 as? TestError }))
        switch forward {
        case .unchanged: super.child(child, willFinishWithErrors: errors)
        case .nothing: break
        case .noErrors: super.child(child, willFinishWithErrors: [])
        }
    }
}

/// A group that records the children its `groupWillAdd(child:)` hook sees.
private final class WillAddRecordingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `added` is a Protector; the superclass guards the rest.
    let added = Protector<[ObjectIdentifier]>([])

    override func groupWillAdd(child: Operation) {
        added.append(ObjectIdentifier(child))
    }
}

/// A group that records which dispatch queue (by its `groupQueueKey` value) its `execute()` ran on.
private final class QueueRecordingGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: `executedOn` is a Protector; the superclass guards the rest.
    let executedOn = Protector<String?>(nil)

    override func execute() {
        executedOn.overwrite(with: DispatchQueue.getSpecific(key: groupQueueKey))
        super.execute()
    }
}

final class GroupTests: GroupTestCase {

    func test__group_children_are_executed() {
        wait(for: group)
        PKAssertProcedureFinished(group)
        XCTAssertTrue(group.didExecute)
        for child in children {
            PKAssertProcedureFinished(child)
            XCTAssertTrue(child.didExecute)
        }
    }

    func test__group_adding_operation_to_running_group() {
        let extra = TestProcedure(name: "Extra")
        checkAfterDidExecute(procedure: group) { group in
            group.addChild(extra)
        }
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(extra)
        XCTAssertTrue(extra.didExecute)
    }

    func test__group_only_adds_initial_operations_to_children_property_once() {
        XCTAssertEqual(group.children.count, 5)
        XCTAssertEqual(Set(group.children.map(ObjectIdentifier.init)), Set(children.map(ObjectIdentifier.init)))
        let added = Counter()
        group.addDidAddOperationBlockObserver { _, _ in added.increment() }
        wait(for: group)
        XCTAssertEqual(added.count, 5)
        // Differs from ProcedureKit: `children` lists only the children that have not finished yet.
        XCTAssertTrue(group.children.isEmpty)
    }

    func test__group_will_add_child_observer_is_called() {
        let child = TestProcedure()
        let group = GroupProcedure(operations: [child])
        let seen = Protector<[(group: ObjectIdentifier, child: ObjectIdentifier)]>([])
        group.addWillAddOperationBlockObserver { group, operation in
            seen.append((ObjectIdentifier(group), ObjectIdentifier(operation)))
        }
        wait(for: group)
        XCTAssertEqual(seen.access.count, 1)
        XCTAssertEqual(seen.access.first?.group, ObjectIdentifier(group))
        XCTAssertEqual(seen.access.first?.child, ObjectIdentifier(child))
    }

    func test__group_did_add_child_observer_is_called() {
        let child = TestProcedure()
        let group = GroupProcedure(operations: [child])
        let seen = Protector<[(group: ObjectIdentifier, child: ObjectIdentifier)]>([])
        group.addDidAddOperationBlockObserver { group, operation in
            seen.append((ObjectIdentifier(group), ObjectIdentifier(operation)))
        }
        wait(for: group)
        XCTAssertEqual(seen.access.count, 1)
        XCTAssertEqual(seen.access.first?.group, ObjectIdentifier(group))
        XCTAssertEqual(seen.access.first?.child, ObjectIdentifier(child))
    }

    func test__group_is_not_suspended_at_start() {
        XCTAssertFalse(group.isSuspended)
    }

    func test__group_suspended_before_execute() {
        let child = TestProcedure()
        let group = TestGroupProcedure(operations: [child])
        group.isSuspended = true
        let executed = DispatchSemaphore(value: 0)
        group.addDidExecuteBlockObserver { _ in executed.signal() }
        addCompletionBlockTo(procedure: group)
        run(operation: group)
        XCTAssertSignalled(executed)
        XCTAssertTrue(group.didExecute)
        XCTAssertFalse(child.didExecute)
        XCTAssertFalse(child.isFinished)
        XCTAssertFalse(group.isFinished)
        group.isSuspended = false
        waitForPendingExpectations()
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(child)
    }

    func test__group_suspended_during_execution_does_not_run_additional_children() {
        let child1 = TestProcedure(name: "Child 1")
        let child2 = TestProcedure(name: "Child 2")
        child2.addDependency(child1)
        let group = TestGroupProcedure(operations: [child1, child2])
        child1.addWillFinishBlockObserver { _, _, _ in group.isSuspended = true }
        let child1Finished = DispatchSemaphore(value: 0)
        child1.addDidFinishBlockObserver { _, _ in child1Finished.signal() }
        addCompletionBlockTo(procedure: group)
        run(operation: group)
        XCTAssertSignalled(child1Finished)
        XCTAssertTrue(group.isSuspended)
        XCTAssertFalse(group.isFinished)
        PKAssertProcedureFinished(child1)
        XCTAssertFalse(child2.didExecute)
        group.isSuspended = false
        waitForPendingExpectations()
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(child2)
        XCTAssertFalse(group.isSuspended)
    }

    func test__group_executes_on_procedure_queue_with_underlying_queue() {
        let underlying = DispatchQueue(
            label: "run.kit.procedure.ProcedureKit.Testing.GroupUnderlyingQueue", attributes: [.concurrent])
        underlying.setSpecific(key: groupQueueKey, value: "underlying")
        queue.underlyingQueue = underlying
        let child = TestProcedure()
        let group = QueueRecordingGroup(operations: [child])
        wait(for: group)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(child)
        XCTAssertEqual(group.executedOn.access, "underlying")
    }

    func test__group_exits_correctly_when_child_errors() {
        children = createTestProcedures(shouldError: true)
        group = TestGroupProcedure(operations: children)
        wait(for: group)
        PKAssertProcedureFinished(group, withErrors: true)
        // Differs from ProcedureKit: the group collects every child's error (ProcedureKit kept only the first).
        PKAssertGroupErrors(group, count: 5)
        for child in children {
            PKAssertGroupErrors(group, contain: child.expectedError as? TestError ?? TestError())
        }
    }

    func test__group_exits_correctly_when_child_group_finishes_with_errors() {
        children = createTestProcedures(shouldError: true)
        let child = TestGroupProcedure(operations: children)
        let parent = TestGroupProcedure(operations: [child])
        wait(for: parent)
        PKAssertProcedureFinished(parent, withErrors: true)
        PKAssertProcedureFinished(child, withErrors: true)
        // Differs from ProcedureKit: each group collects all of its children's errors, so both have five.
        PKAssertGroupErrors(child, count: 5)
        PKAssertGroupErrors(parent, count: 5)
    }

    func test__group__transform_child_errors_block_receives_children_and_errors() {
        children = createTestProcedures(shouldError: true)
        group = TestGroupProcedure(operations: children)
        let received = Protector<[(name: String, errors: [TestError])]>([])
        group.transformChildErrorBlock = { child, errors in
            received.append((child.procedureName, errors.compactMap { $0 as? TestError }))
        }
        wait(for: group)
        PKAssertGroupErrors(group, count: 5)
        XCTAssertEqual(received.access.count, 5)
        for child in children {
            let calls = received.access.filter { $0.name == child.procedureName }
            XCTAssertEqual(calls.count, 1)
            XCTAssertEqual(calls.first?.errors, [child.error as? TestError].compactMap { $0 })
        }
    }

    func test__group__transform_child_errors_block_removes_errors_from_child_willFinishWithError() {
        children = createTestProcedures(shouldError: true)
        let replacement = TestError()
        let firstChild = children[0]
        let group = ChildErrorsRecordingGroup(operations: children, forward: .unchanged)
        group.transformChildErrorBlock = { child, errors in
            if child === firstChild { errors = [replacement] }
        }
        wait(for: group)
        let received = group.received.access
        XCTAssertEqual(received.count, 5)
        XCTAssertEqual(received.first { $0.name == firstChild.procedureName }?.errors, [replacement])
        PKAssertGroupErrors(group, count: 5)
        PKAssertGroupErrors(group, contain: replacement)
        PKAssertGroupErrors(group, doesNot: true, contain: firstChild.expectedError as? TestError ?? TestError())
        // The child keeps its own error; only what the group collects changes.
        XCTAssertEqual(firstChild.error as? TestError, firstChild.expectedError as? TestError)
    }

    func test__group__child_willFinishWithError_does_not_call_super() {
        children = createTestProcedures(shouldError: true)
        let group = ChildErrorsRecordingGroup(operations: children, forward: .nothing)
        wait(for: group)
        XCTAssertEqual(group.received.access.count, 5)
        PKAssertGroupErrors(group, count: 0)
        PKAssertProcedureFinished(group)
    }

    func test__group__child_willFinishWithError_calls_super_with_modified_errors() {
        children = createTestProcedures(shouldError: true)
        let group = ChildErrorsRecordingGroup(operations: children, forward: .noErrors)
        wait(for: group)
        XCTAssertEqual(group.received.access.count, 5)
        PKAssertGroupErrors(group, count: 0)
        PKAssertProcedureFinished(group)
    }

    func test__group_cancels_children() {
        let didCancel = DispatchSemaphore(value: 0)
        group.addDidCancelBlockObserver { _, _ in didCancel.signal() }
        group.cancel()
        XCTAssertSignalled(didCancel)
        for child in children {
            XCTAssertTrue(child.isCancelled)
            // Differs from ProcedureKit: children get a parent-cancelled error even when the group had none.
            XCTAssertEqual(child.error as? ProcedureKitError, ProcedureKitError.parent(cancelledWithError: nil))
        }
    }

    func test__group_cancels_children_when_running() {
        checkAfterDidExecute(procedure: group) { $0.cancel() }
        PKAssertProcedureCancelled(group)
    }

    func test__group_execute_is_called_when_cancelled_before_running() {
        group.cancel()
        XCTAssertFalse(group.didExecute)
        wait(for: group)
        PKAssertProcedureCancelled(group)
        XCTAssertTrue(group.didExecute)
    }

    func test__group_cancel_with_errors_does_not_collect_errors_sent_to_children() {
        let error = TestError()
        // Children that run until cancelled, so that the group is still running when it is cancelled.
        let children = (0..<3).map { makeWaitingProcedure(name: "Waiting \($0)") }
        let group = TestGroupProcedure(operations: children)
        checkAfterDidExecute(procedure: group) { group in
            group.cancel(with: error)
        }
        PKAssertProcedureCancelledWithError(group, error)
        XCTAssertEqual(group.errors.count, 1)
        for child in children {
            PKAssertProcedureCancelledWithError(child, ProcedureKitError.parent(cancelledWithError: error))
        }
    }

    func test__group_cancel_with_errors_cancels_children_with_a_parent_error() {
        let error = TestError()
        group.cancel(with: error)
        for child in children {
            let parentError = child.error as? ProcedureKitError
            XCTAssertEqual(parentError, ProcedureKitError.parent(cancelledWithError: error))
            XCTAssertEqual(parentError?.underlyingErrors.compactMap { $0 as? TestError }, [error])
        }
    }

    func test__group_additional_children_are_cancelled_if_group_is_cancelled() {
        group.cancel()
        let additional = TestProcedure(name: "Additional")
        group.addChild(additional)
        XCTAssertTrue(additional.isCancelled)
        wait(for: group)
        PKAssertProcedureCancelled(group)
        XCTAssertFalse(additional.didExecute)
    }

    func test__group_does_not_finish_before_all_children_finish() {
        let children = self.children!
        let allFinished = Protector<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _, _ in
            allFinished.overwrite(with: children.allSatisfy(\.isFinished))
        }
        wait(for: group)
        XCTAssertEqual(allFinished.access, true)
    }

    func test__group_does_not_finish_before_child_operation_finishes() {
        let gate = DispatchSemaphore(value: 0)
        let operation = BlockOperation { gate.wait() }
        let group = GroupProcedure(operations: [operation])
        addCompletionBlockTo(procedure: group)
        run(operation: group)
        XCTAssertFalse(group.isFinished)
        gate.signal()
        waitForPendingExpectations()
        XCTAssertTrue(operation.isFinished)
        PKAssertProcedureFinished(group)
    }

    func test__child_can_produce_operation() {
        let produced = TestProcedure(name: "Produced")
        let child = TestProcedure(name: "Child", delay: 0.01, produced: produced)
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(child)
        PKAssertProcedureFinished(produced)
    }

    func test__group_does_not_finish_before_child_produced_operations_are_finished() {
        let child = TestProcedure(name: "Child")
        let produced = TestProcedure(name: "Produced", delay: 0.02)
        produced.addDependency(child)
        child.addWillExecuteBlockObserver { child, pendingExecute in
            try? child.produce(operation: produced, before: pendingExecute)
        }
        let group = GroupProcedure(operations: [child])
        let producedFinished = Protector<Bool?>(nil)
        group.addWillFinishBlockObserver { _, _, _ in producedFinished.overwrite(with: produced.isFinished) }
        wait(for: group)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(produced)
        XCTAssertEqual(producedFinished.access, true)
    }

    func test__group_children_array_receives_operations_produced_by_children() {
        let child = TestProcedure(name: "Child")
        let produced = TestProcedure(name: "Produced", delay: 0.02)
        produced.addDependency(child)
        child.addWillExecuteBlockObserver { child, pendingExecute in
            try? child.produce(operation: produced, before: pendingExecute)
        }
        let group = GroupProcedure(operations: [child])
        let added = Protector<[ObjectIdentifier]>([])
        group.addDidAddOperationBlockObserver { _, operation in added.append(ObjectIdentifier(operation)) }
        wait(for: group)
        // Differs from ProcedureKit: `children` drops finished children; DidAddOperation observers see them all.
        XCTAssertEqual(Set(added.access), [ObjectIdentifier(child), ObjectIdentifier(produced)])
        XCTAssertEqual(added.access.count, 2)
    }

    func test__group_child_with_conditions_does_not_expose_evaluateconditions_procedure() {
        let failing = TestProcedure(name: "Failing")
        failing.add(condition: FalseCondition())
        let satisfied = TestProcedure(name: "Satisfied")
        satisfied.add(condition: TrueCondition())
        let group = WillAddRecordingGroup(operations: [failing, satisfied])
        let observed = Protector<[ObjectIdentifier]>([])
        group.addWillAddOperationBlockObserver { _, operation in observed.append(ObjectIdentifier(operation)) }
        let transformed = Protector<[ObjectIdentifier]>([])
        group.transformChildErrorBlock = { child, _ in transformed.append(ObjectIdentifier(child)) }
        wait(for: group)
        let expected: Set = [ObjectIdentifier(failing), ObjectIdentifier(satisfied)]
        XCTAssertEqual(Set(group.added.access), expected)
        XCTAssertEqual(group.added.access.count, 2)
        XCTAssertEqual(Set(observed.access), expected)
        XCTAssertEqual(Set(transformed.access), expected)
        XCTAssertEqual(transformed.access.count, 2)
        PKAssertProcedureCancelledWithError(failing, ProcedureKitError.FalseCondition())
        PKAssertProcedureFinished(satisfied)
    }

    func test__group_max_concurrent_operation_count_reads_back() {
        group.maxConcurrentOperationCount = 2
        XCTAssertEqual(group.maxConcurrentOperationCount, 2)
    }

    func test__group_max_concurrent_operation_count_1_runs_children_one_at_a_time() {
        let tracker = ConcurrencyTracker()
        let children = (0..<3).map { index in
            ExecutingProcedure(name: "Tracked \(index)") { procedure in
                tracker.enter()
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.01) {
                    tracker.leave()
                    procedure.finish()
                }
            }
        }
        let group = GroupProcedure(operations: children)
        group.maxConcurrentOperationCount = 1
        wait(for: group)
        PKAssertProcedureFinished(group)
        XCTAssertEqual(tracker.entered, 3)
        XCTAssertEqual(tracker.maxConcurrent, 1)
    }
}

final class GroupAddChildConcurrencyTests: ProcedureKitTestCase {

    func test__group_add_child__prior_to_adding_group_to_queue() {
        let recorder = EventRecorder()
        let child = BlockProcedure {}
        let group = GroupProcedure(operations: [])
        group.addObserver(recorder)
        group.addChild(child)
        wait(for: group)
        PKAssertProcedureFinished(child)
        PKAssertProcedureFinished(group)
        PKAssertProcedureNoConcurrentEvents(recorder)
    }

    func test__group_add_child_operation__prior_to_adding_group_to_queue() {
        let ran = Flag()
        let child = BlockOperation { ran.set() }
        let group = GroupProcedure(operations: [])
        group.addChild(child)
        wait(for: group)
        XCTAssertTrue(child.isFinished)
        XCTAssertTrue(ran.isSet)
        PKAssertProcedureFinished(group)
    }

    func test__group_add_child__from_an_observer_on_another_child() {
        let recorder = EventRecorder()
        let initial = TestProcedure(name: "Initial")
        let other = TestProcedure(name: "Other")
        let group = GroupProcedure(operations: [initial])
        group.addObserver(recorder)
        initial.addWillExecuteBlockObserver { _, _ in group.addChild(other) }
        wait(for: group)
        PKAssertProcedureFinished(initial)
        PKAssertProcedureFinished(other)
        PKAssertProcedureFinished(group)
        PKAssertProcedureNoConcurrentEvents(recorder)
    }

    func test__group_add_child__before_procedure_execute_async() {
        let child = TestProcedure(name: "Child")
        let added = TestProcedure(name: "Added")
        let group = GroupProcedure(operations: [child])
        child.addWillExecuteBlockObserver { _, pendingExecute in
            DispatchQueue.global().async { group.addChild(added, before: pendingExecute) }
        }
        let childStateAtAdd = Protector<(executing: Bool, finished: Bool, executed: Bool)?>(nil)
        group.addWillAddOperationBlockObserver { _, operation in
            guard operation === added else { return }
            childStateAtAdd.overwrite(with: (child.isExecuting, child.isFinished, child.didExecute))
        }
        wait(for: group)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(added)
        XCTAssertEqual(childStateAtAdd.access?.executing, false)
        XCTAssertEqual(childStateAtAdd.access?.finished, false)
        XCTAssertEqual(childStateAtAdd.access?.executed, false)
    }

    func test__group_add_child__before_procedure_finish_async() {
        let child = TestProcedure(name: "Child")
        let added = TestProcedure(name: "Added")
        let group = GroupProcedure(operations: [child])
        child.addWillFinishBlockObserver { _, _, pendingFinish in
            DispatchQueue.global().async { group.addChild(added, before: pendingFinish) }
        }
        let childFinishedAtAdd = Protector<Bool?>(nil)
        group.addWillAddOperationBlockObserver { _, operation in
            guard operation === added else { return }
            childFinishedAtAdd.overwrite(with: child.isFinished)
        }
        wait(for: group)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(added)
        XCTAssertEqual(childFinishedAtAdd.access, false)
    }
}
