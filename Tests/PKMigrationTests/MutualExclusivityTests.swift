import Foundation
import PKConditions
import PKTesting
import XCTest

final class MutualExclusiveTests: ProcedureKitTestCase {

    /// A category no other test uses: categories are process-wide.
    private func uniqueCategory(_ function: String = #function) -> String {
        "\(function) \(UUID().uuidString)"
    }

    func test__mutual_exclusive_name() {
        XCTAssertEqual(MutuallyExclusive<Procedure>().name, "MutuallyExclusive<Procedure>")
    }

    func test__mutual_exclusive_default_category() {
        XCTAssertEqual(MutuallyExclusive<Procedure>().mutuallyExclusiveCategories, ["MutuallyExclusive<Procedure>"])
    }

    func test__mutual_exclusive_category() {
        let condition = MutuallyExclusive<Procedure>(category: "testing")
        XCTAssertEqual(condition.mutuallyExclusiveCategories, ["testing"])
    }

    func test__alert_presentation_is_mutually_exclusive() {
        XCTAssertTrue(MutuallyExclusive<Procedure>(category: uniqueCategory()).isMutuallyExclusive)
    }

    func test__alert_presentation_evaluation_satisfied() {
        let result = Protector<ConditionResult?>(nil)
        MutuallyExclusive<Procedure>(category: uniqueCategory()).evaluate(procedure: procedure) {
            result.overwrite(with: $0)
        }
        XCTAssertNotNil(result.access)
        if let result = result.access { PKAssertConditionSatisfied(result) }
    }

    func test__mutually_exclusive_operations_can_be_executed() {
        let category = uniqueCategory()
        let procedure1 = TestProcedure(name: "Procedure 1")
        procedure1.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        let procedure2 = TestProcedure(name: "Procedure 2")
        procedure2.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        wait(for: procedure1, procedure2)
        PKAssertProcedureFinished(procedure1)
        PKAssertProcedureFinished(procedure2)
    }
}

final class MutualExclusiveConcurrencyTests: ProcedureKitTestCase {

    private func uniqueCategory(_ function: String = #function) -> String {
        "\(function) \(UUID().uuidString)"
    }

    /// A procedure in `category` that is tracked by `tracker` while it executes, for a short while.
    private func makeTrackedProcedure(_ index: Int, category: String, tracker: ConcurrencyTracker)
        -> ExecutingProcedure
    {
        let procedure = ExecutingProcedure(name: "Tracked \(index)") { procedure in
            tracker.enter()
            DispatchQueue.global().asyncAfter(deadline: .now() + 0.005) {
                tracker.leave()
                procedure.finish()
            }
        }
        procedure.add(condition: MutuallyExclusive<ExecutingProcedure>(category: category))
        return procedure
    }

    func test__mutually_exclusive_operation_are_run_exclusively() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        queue.maxConcurrentOperationCount = 3
        let procedures = (0..<3).map { makeTrackedProcedure($0, category: category, tracker: tracker) }
        wait(forAll: procedures)
        for procedure in procedures { PKAssertProcedureFinished(procedure) }
        XCTAssertEqual(tracker.entered, 3)
        XCTAssertEqual(tracker.maxConcurrent, 1)
    }

    func test__mutually_exclusive_operations_added_concurrently_are_run_exclusively() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let procedures = (0..<3).map { makeTrackedProcedure($0, category: category, tracker: tracker) }
        addCompletionBlockTo(procedures: procedures)
        let queue = self.queue!
        DispatchQueue.concurrentPerform(iterations: procedures.count) { index in
            queue.add(procedure: procedures[index])
        }
        waitForPendingExpectations()
        for procedure in procedures { PKAssertProcedureFinished(procedure) }
        XCTAssertEqual(tracker.maxConcurrent, 1)
    }

    func test__mutually_exclusive_procedures_on_different_queues_are_run_exclusively() {
        let category = uniqueCategory()
        let tracker = ConcurrencyTracker()
        let procedures = (0..<3).map { makeTrackedProcedure($0, category: category, tracker: tracker) }
        let queues = procedures.map { _ in ProcedureQueue() }
        for (procedure, queue) in zip(procedures, queues) { queue.add(procedure: procedure) }
        XCTAssertTrue(ProcedureWaiter.wait(for: procedures, timeout: 3))
        for procedure in procedures { PKAssertProcedureFinished(procedure) }
        XCTAssertEqual(tracker.maxConcurrent, 1)
    }

    func test__mutual_exclusivity_with_dependencies() {
        let category = uniqueCategory()
        let procedure1 = TestProcedure(name: "Procedure 1")
        procedure1.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        let procedure2 = TestProcedure(name: "Procedure 2")
        procedure2.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        procedure2.addDependency(procedure1)
        wait(for: procedure2, procedure1)
        PKAssertProcedureFinished(procedure1)
        PKAssertProcedureFinished(procedure2)
        if let first = procedure1.executedAt, let second = procedure2.executedAt {
            XCTAssertLessThanOrEqual(first, second)
        } else {
            XCTFail("both procedures should have executed")
        }
    }

    func test__mutually_exclusive_procedure_cancelled_while_waiting_for_the_lock_does_not_execute() {
        let category = uniqueCategory()
        let started = DispatchSemaphore(value: 0)
        let holder = makeWaitingProcedure(name: "Holder", started: started)
        holder.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        let waiter = TestProcedure(name: "Waiter")
        waiter.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        addCompletionBlockTo(procedures: [holder, waiter])
        run(operation: holder)
        XCTAssertSignalled(started)
        run(operation: waiter)
        waiter.cancel()
        XCTAssertTrue(ProcedureWaiter.wait(for: waiter, timeout: 3))
        PKAssertProcedureCancelled(waiter)
        XCTAssertFalse(waiter.didExecute)
        XCTAssertFalse(holder.isFinished)
        holder.finish()
        waitForPendingExpectations()
        PKAssertProcedureFinished(holder)
    }

    func test__mutual_exclusivity_when_initial_reference_to_queue_goes_away() {
        let category = uniqueCategory()
        let started = DispatchSemaphore(value: 0)
        let procedure = makeWaitingProcedure(name: "Exclusive", started: started)
        procedure.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            leaks.track(queue)
            queue.add(procedure: procedure)
        }
        XCTAssertSignalled(started)
        // The running procedure keeps its queue alive.
        XCTAssertEqual(leaks.alive.count, 1)
        procedure.finish()
        XCTAssertTrue(ProcedureWaiter.wait(for: procedure, timeout: 3))
        PKAssertProcedureFinished(procedure)
        PKAssertReleased(leaks)
    }
}
