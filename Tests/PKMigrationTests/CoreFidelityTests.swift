import Foundation
import PKTesting
import XCTest

// ProcedureKit 5.2 tests that our core failed until issue 23, re-created with only the Swift 6 changes (state behind
// locks, `@unchecked Sendable` fixtures) and, where ProcedureKit used `OperationQueue.current`,
// `ProcedureQueue.current`. Each is named after ProcedureKit's test.

// MARK: - GroupProcedure.addChild(_:before:) on a group that has not started

/// ProcedureKit's GroupTests.swift, `GroupAddChildConcurrencyTests`: the group is never enqueued, yet adding a child
/// runs its WillAdd observers (before the other procedure's held event is released).
final class GroupAddChildBeforeStartTests: ProcedureKitTestCase {

    private struct Seen: Sendable {
        var called = false
        var executing = false
        var finished = false
    }

    /// Runs `procedure`, whose held event (from `holdEvent`) a global queue hands to a never-enqueued group's
    /// `addChild(_:before:)` half a second later; returns what the group's WillAdd observer saw, and asserts that
    /// the group and the child are released afterwards.
    private func addChildToUnstartedGroup(
        holdingAnEventOf procedure: BlockProcedure,
        holdEvent: (BlockProcedure, @escaping @Sendable (PendingEvent) -> Void) -> Void
    ) -> Seen {
        let seen = Protector(Seen())
        let leaks = LeakCheck()
        do {
            let addedChild = BlockProcedure { usleep(5000) }
            addedChild.name = "AddedChildOperation"
            let group = TestGroupProcedure(operations: [])
            leaks.track([group, addedChild])
            holdEvent(procedure) { pendingEvent in
                DispatchQueue.global().asyncAfter(deadline: .now() + 0.5) {
                    group.addChild(addedChild, before: pendingEvent)
                }
            }
            group.addWillAddOperationBlockObserver { group, operation in
                guard operation === addedChild else { return }
                seen.overwrite(with: Seen(called: true, executing: group.isExecuting, finished: group.isFinished))
            }
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(leaks.waitUntilReleased(), [], "a group that never ran, and its child, must be released")
        return seen.access
    }

    func test__group_add_child__before_procedure_execute_async() {
        let procedure = BlockProcedure {}
        let seen = addChildToUnstartedGroup(holdingAnEventOf: procedure) { procedure, add in
            procedure.addWillExecuteBlockObserver { _, pendingExecute in add(pendingExecute) }
        }
        XCTAssertTrue(seen.called, "group never executed its WillAddOperation observer for the added child operation")
        XCTAssertFalse(seen.executing, "group was executing when its WillAddOperation observer was fired")
        XCTAssertFalse(seen.finished, "group was finished when its WillAddOperation observer was fired")
    }

    func test__group_add_child__before_procedure_finish_async() {
        let procedure = BlockProcedure {}
        let seen = addChildToUnstartedGroup(holdingAnEventOf: procedure) { procedure, add in
            procedure.addWillFinishBlockObserver { _, _, pendingFinish in add(pendingFinish) }
        }
        XCTAssertTrue(seen.called, "procedure never executed its WillAddOperation observer for the produced operation")
        XCTAssertFalse(seen.executing, "procedure was executing when its WillAddOperation observer was fired")
        XCTAssertFalse(seen.finished, "procedure was finished when its WillAddOperation observer was fired")
    }

    func test__child_added_before_the_group_starts_runs_when_it_does() {
        let group = TestGroupProcedure(operations: [])
        let child = TestProcedure(name: "Early")
        let added = Protector<[String]>([])
        group.addDidAddOperationBlockObserver { _, operation in added.append(operation.name ?? "?") }
        group.addChild(child)
        XCTAssertEqual(added.access, ["Early"], "the add steps run at once, before the group is enqueued")
        XCTAssertFalse(child.isEnqueued, "the child waits in the group until it executes")
        XCTAssertTrue(group.children.contains { $0 === child })
        wait(for: group)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(child)
        XCTAssertEqual(added.access, ["Early"], "the add steps ran once")
    }

    func test__cancelling_an_unstarted_group_cancels_a_child_added_before_it_started() {
        let group = TestGroupProcedure(operations: [])
        let child = TestProcedure(name: "Early")
        group.addChild(child)
        group.cancel()
        XCTAssertTrue(child.isCancelled)
        wait(for: group)
        PKAssertProcedureCancelled(group)
        XCTAssertFalse(child.didExecute)
    }
}

// MARK: - A child's produce(operation:) from the group's execute()

/// ProcedureKit's `CustomGroup` (BlockObserverTests.swift, `BlockObserverSynchronizationTests`): after
/// `super.execute()`, a child produces an operation; the child's WillAdd observer is synchronized with the group.
private final class ProducingFromExecuteGroup: GroupProcedure, @unchecked Sendable {
    // @unchecked Sendable: the lets are immutable or thread-safe; the superclass guards its own state.
    let child1: ExecutingProcedure
    let produced = TestProcedure(name: "Produced")
    /// Lets `child1` finish: signalled once `execute()` has produced.
    private let release = DispatchSemaphore(value: 0)
    let observerRan = Flag()
    let produceError = Protector<String?>(nil)

    init() {
        // ProcedureKit's child was a TestProcedure finishing after 1 µs, which raced `produce` (a finished child
        // cannot produce). Ours finishes only once `execute()` has produced, so the test is about what it tests
        // however loaded the machine.
        let release = self.release
        let child1 = ExecutingProcedure(name: "Child1") { procedure in
            DispatchQueue.global().async {
                release.wait()
                procedure.finish()
            }
        }
        self.child1 = child1
        super.init(operations: [child1])
        child1.addWillAddOperationBlockObserver(synchronizedWith: self) { [observerRan] _, _ in observerRan.set() }
    }

    override func execute() {
        super.execute()
        do { try child1.produce(operation: produced) } catch { produceError.overwrite(with: "\(error)") }
        release.signal()
    }
}

final class BlockObserverSynchronizationTests: ProcedureKitTestCase {

    func test__will_add_observer_synchronized_with_parent_group() {
        let group = ProducingFromExecuteGroup()
        wait(for: group)
        XCTAssertNil(group.produceError.access)
        XCTAssertTrue(group.observerRan.isSet)
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(group.produced)  // the group waited for the produced operation
    }

    func test__initial_children_are_added_before_the_group_did_execute() {
        let child = TestProcedure(name: "Child")
        let group = GroupProcedure(operations: [child])
        let events = Protector<[String]>([])
        group.addDidAddOperationBlockObserver { _, _ in events.append("didAdd") }
        group.addDidExecuteBlockObserver { _ in events.append("didExecute") }
        wait(for: group)
        XCTAssertEqual(events.access, ["didAdd", "didExecute"], "ProcedureKit's order")
    }
}

// MARK: - ProcedureQueue.current, for code that asked OperationQueue.current

final class ProcedureQueueCurrentTests: ProcedureKitTestCase {

    /// ProcedureKit's `test__group_child_operation_add_operation_subclass_via_operationqueue_current`, with
    /// `ProcedureQueue.current` for `OperationQueue.current`; ProcedureKit's `group.children` assertions become
    /// DidAdd observations (a finished child is not kept).
    func test__group_child_operation_add_operation_subclass_via_procedurequeue_current() {
        let childProducedOperation = BlockOperation { usleep(200_000) }
        let foundQueue = Flag()
        let child = BlockOperation {
            guard let currentQueue = ProcedureQueue.current else { return }
            foundQueue.set()
            currentQueue.addOperation(childProducedOperation)
        }
        let group = GroupProcedure(operations: [child])
        let added = Protector<[ObjectIdentifier]>([])
        group.addDidAddOperationBlockObserver { _, operation in added.append(ObjectIdentifier(operation)) }
        wait(for: group)
        XCTAssertTrue(foundQueue.isSet, "ProcedureQueue.current was nil inside a plain operation")
        XCTAssertTrue(childProducedOperation.isFinished, "the group did not wait for the operation")
        XCTAssertEqual(Set(added.access), [ObjectIdentifier(child), ObjectIdentifier(childProducedOperation)])
        PKAssertProcedureFinished(group)
    }

    func test__current_is_the_queue_running_execute_and_nil_elsewhere() {
        let seen = Protector<ProcedureQueue?>(nil)
        let procedure = ExecutingProcedure { procedure in
            seen.overwrite(with: ProcedureQueue.current)
            procedure.finish()
        }
        wait(for: procedure)
        XCTAssertTrue(seen.access === queue)
        XCTAssertNil(ProcedureQueue.current, "the test's own thread runs no procedure")
    }

    func test__current_inside_a_groups_child_is_the_groups_queue_and_adding_there_makes_a_child() {
        let late = TestProcedure(name: "Late")
        let sawOuterQueue = Flag()
        let child = ExecutingProcedure { [queue] procedure in
            if ProcedureQueue.current === queue { sawOuterQueue.set() }
            ProcedureQueue.current?.add(procedure: late)
            procedure.finish()
        }
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        XCTAssertFalse(sawOuterQueue.isSet, "a group's child runs on the group's private queue")
        PKAssertProcedureFinished(group)
        PKAssertProcedureFinished(late)  // the group waited for it
    }

    func test__a_groups_queue_keeps_the_groups_delegate() {
        let delegateKept = Flag()
        let child = ExecutingProcedure { procedure in
            let other = QueueTestDelegate()
            guard let current = ProcedureQueue.current else { return procedure.finish() }
            current.delegate = other
            if current.delegate !== other { delegateKept.set() }
            procedure.finish()
        }
        let group = GroupProcedure(operations: [child])
        wait(for: group)
        XCTAssertTrue(delegateKept.isSet)
        PKAssertProcedureFinished(group)
    }
}

// MARK: - RetryProcedure fed by injectResult(from:)

/// ProcedureKit's RetryProcedureTests.swift `test__with_input_procedure_payload`, on the system clock as in
/// ProcedureKit: the source is a TestProcedure whose output was set before it ran.
final class RetryInputProcedurePayloadTests: RetryTestCase {

    func test__with_input_procedure_payload() {
        let outputProcedure = TestProcedure()
        outputProcedure.output = .ready(.success("ProcedureKit"))
        retry = Retry(iterator: createPayloadIterator(succeedsAfterFailureCount: 2)) { $1 }

        let textOutput = Protector<[String]>([])
        retry.addWillAddOperationBlockObserver { _, operation in
            guard let procedure = operation as? TestProcedure else { return }
            procedure.addDidFinishBlockObserver { testProcedure, errors in
                guard errors.isEmpty, let output = testProcedure.output.value?.value else { return }
                textOutput.append(output)
            }
        }
        retry.injectResult(from: outputProcedure)

        wait(for: retry, outputProcedure)
        PKAssertProcedureFinished(retry)
        XCTAssertEqual(textOutput.access, ["Hello ProcedureKit"])
    }

    func test__a_test_procedure_keeps_an_output_set_before_it_runs() {
        let preset = TestProcedure()
        preset.output = .ready(.success("Preset"))
        let plain = TestProcedure()
        wait(for: preset, plain)
        PKAssertProcedureOutput(preset, "Preset")
        PKAssertProcedureOutput(plain, "Hello World")
    }
}
