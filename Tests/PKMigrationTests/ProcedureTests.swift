import Foundation
import PKTesting
import XCTest

private let underlyingQueueKey = DispatchSpecificKey<String>()

final class ProcedureTests: ProcedureKitTestCase {

    func test__procedure_name() {
        XCTAssertEqual(BlockProcedure {}.name, "BlockProcedure")
        XCTAssertEqual(GroupProcedure(operations: []).name, "GroupProcedure")
        XCTAssertEqual(procedure.name, "TestProcedure")
    }

    func test__identity_is_equatable() {
        XCTAssertEqual(procedure.identity, procedure.identity)
        XCTAssertNotEqual(procedure.identity, TestProcedure().identity)
    }

    func test__identity_description() {
        XCTAssertTrue(procedure.identity.description.hasPrefix("TestProcedure #"))
        procedure.name = nil
        // Differs from ProcedureKit: a procedure's name falls back to its type name, so it is never "Unnamed".
        XCTAssertTrue(procedure.identity.description.hasPrefix("TestProcedure #"))
    }

    func test__procedure_status_reports_how_it_ended() {
        let failing = TestProcedure(error: TestError())
        let cancelled = TestProcedure()
        cancelled.cancel()
        wait(for: procedure, failing, cancelled)
        XCTAssertEqual(procedure.status, .finished)
        // Differs from ProcedureKit: a finished procedure reports whether it failed or was cancelled.
        XCTAssertEqual(failing.status, .failed)
        XCTAssertEqual(cancelled.status, .cancelled)
    }
}

final class ExecutionTests: ProcedureKitTestCase {

    func test__procedure_executes() {
        wait(for: procedure)
        XCTAssertTrue(procedure.didExecute)
        PKAssertProcedureFinished(procedure)
    }

    func test__procedure_executes_once() {
        wait(for: procedure)
        XCTAssertEqual(procedure.executeCount, 1)
    }

    func test__procedure_add_multiple_completion_blocks() {
        let counters = [Counter(), Counter(), Counter()]
        let expectations = (0..<3).map { XCTestExpectation(description: "completion block \($0)") }
        for (counter, expectation) in zip(counters, expectations) {
            procedure.addCompletionBlock {
                counter.increment()
                expectation.fulfill()
            }
        }
        wait(for: procedure)
        XCTAssertEqual(XCTWaiter().wait(for: expectations, timeout: 3), .completed)
        XCTAssertEqual(counters.map(\.count), [1, 1, 1])
    }

    func test__enqueue_a_sequence_of_operations() {
        addCompletionBlockTo(procedure: procedure)
        [procedure].enqueue(on: queue)
        waitForPendingExpectations()
        PKAssertProcedureFinished(procedure)
    }

    func test__enqueue_a_sequence_of_operations_deallocates_queue() {
        let leaks = LeakCheck()
        let procedure = TestProcedure()
        do {
            let otherQueue = ProcedureQueue()
            leaks.track(otherQueue)
            [procedure].enqueue(on: otherQueue)
        }
        XCTAssertTrue(ProcedureWaiter.wait(for: procedure, timeout: 3))
        PKAssertProcedureFinished(procedure)
        PKAssertReleased(leaks)
    }

    func test__procedure_executes_on_underlying_queue_of_procedurequeue() {
        let underlying = DispatchQueue(label: "run.kit.procedure.ProcedureKit.Testing.UnderlyingQueue")
        underlying.setSpecific(key: underlyingQueueKey, value: "underlying")
        queue.underlyingQueue = underlying
        let ranOn = Protector<String?>(nil)
        let procedure = ExecutingProcedure { procedure in
            ranOn.overwrite(with: DispatchQueue.getSpecific(key: underlyingQueueKey))
            procedure.finish()
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(ranOn.access, "underlying")
    }

    func test__procedure_queue_main_has_underlyingqueue_main() {
        XCTAssertEqual(ProcedureQueue.main.underlyingQueue?.isMainDispatchQueue, true)
        XCTAssertEqual(ProcedureQueue.main.maxConcurrentOperationCount, 1)
    }
}

final class DependencyTests: ProcedureKitTestCase {

    /// Records, as `procedure` is about to execute, whether each of `dependencies` had finished.
    private func recordDependencies(of procedure: TestProcedure, _ dependencies: [Procedure]) -> Protector<[Bool]> {
        let finished = Protector<[Bool]>([])
        procedure.addWillExecuteBlockObserver { _, _ in
            finished.overwrite(with: dependencies.map(\.isFinished))
        }
        return finished
    }

    func test__operation_added_using_then_follows_receiver() {
        let another = TestProcedure()
        let finished = recordDependencies(of: another, [procedure])
        let operations = procedure.then(do: another)
        XCTAssertEqual(operations, [procedure, another])
        wait(for: procedure, another)
        PKAssertProcedureFinished(another)
        XCTAssertEqual(finished.access, [true])
    }

    func test__operation_added_using_then_via_closure_follows_receiver() {
        let another = TestProcedure()
        let finished = recordDependencies(of: another, [procedure])
        let operations = procedure.then { another }
        XCTAssertEqual(operations, [procedure, another])
        wait(for: procedure, another)
        XCTAssertEqual(finished.access, [true])
    }

    func test__operation_added_using_then_via_closure_returning_nil() {
        let operations = procedure.then { nil }
        XCTAssertEqual(operations, [procedure])
    }

    func test__operation_added_using_then_via_closure_throwing_error() {
        let error = TestError()
        XCTAssertThrowsError(try procedure.then { throw error }) { thrown in
            XCTAssertEqual(thrown as? TestError, error)
        }
    }

    func test__operation_added_to_array_using_then() {
        let procedure = self.procedure!
        let one = TestProcedure(name: "One")
        let two = TestProcedure(name: "Two", delay: 0.02)
        let another = TestProcedure(name: "Another")
        let finished = recordDependencies(of: another, [one, two, procedure])
        let operations = [one, two, procedure].then(do: another)
        XCTAssertEqual(operations.count, 4)
        wait(forAll: operations)
        PKAssertProcedureFinished(another)
        XCTAssertEqual(finished.access, [true, true, true])
    }

    func test__operation_added_to_array_using_then_via_closure() {
        let procedure = self.procedure!
        let one = TestProcedure(name: "One")
        let two = TestProcedure(name: "Two", delay: 0.02)
        let another = TestProcedure(name: "Another")
        let finished = recordDependencies(of: another, [one, two, procedure])
        let operations = [one, two, procedure].then { another }
        XCTAssertEqual(operations.count, 4)
        wait(forAll: operations)
        XCTAssertEqual(finished.access, [true, true, true])
    }

    func test__operation_added_to_array_using_then_via_closure_throwing_error() {
        let error = TestError()
        let procedure = self.procedure!
        XCTAssertThrowsError(try [TestProcedure(), procedure].then { throw error }) { thrown in
            XCTAssertEqual(thrown as? TestError, error)
        }
    }

    func test__operation_added_to_array_using_then_via_closure_returning_nil() {
        let procedure = self.procedure!
        let operations = [TestProcedure(), TestProcedure(), procedure].then { nil }
        XCTAssertEqual(operations.count, 3)
    }
}

final class ProduceTests: ProcedureKitTestCase {

    func test__procedure_produce_operation() {
        let recorder = EventRecorder()
        let produced = TestProcedure(name: "Produced")
        let procedure = ExecutingProcedure { procedure in
            do {
                try procedure.produce(operation: produced)
                procedure.finish()
            } catch {
                procedure.finish(with: error)
            }
        }
        procedure.addObserver(recorder)
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureFinished(produced)
        PKAssertProcedureNoConcurrentEvents(recorder)
        XCTAssertEqual(recorder.count(of: .willAdd, for: procedure), 1)
    }

    func test__procedure_produce_operation_before_any_queue_throws_no_queue() {
        XCTAssertThrowsError(try procedure.produce(operation: TestProcedure())) { error in
            XCTAssertEqual(error as? ProcedureKitError, ProcedureKitError.noQueue())
        }
    }

    func test__procedure_produce_operation_before_execute() {
        let produced = TestProcedure(name: "Produced")
        let executedBeforeAdd = Protector<Bool?>(nil)
        procedure.addWillExecuteBlockObserver { procedure, pendingExecute in
            try? procedure.produce(operation: produced, before: pendingExecute)
        }
        procedure.addWillAddOperationBlockObserver { procedure, _ in
            executedBeforeAdd.overwrite(with: procedure.didExecute)
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureFinished(produced)
        XCTAssertEqual(executedBeforeAdd.access, false)
    }

    func test__procedure_produce_operation_before_execute_async() {
        let produced = TestProcedure(name: "Produced")
        let stateAtAdd = Protector<(executing: Bool, finished: Bool, executed: Bool)?>(nil)
        procedure.addWillExecuteBlockObserver { procedure, pendingExecute in
            DispatchQueue.global().async {
                try? procedure.produce(operation: produced, before: pendingExecute)
            }
        }
        procedure.addWillAddOperationBlockObserver { procedure, _ in
            stateAtAdd.overwrite(with: (procedure.isExecuting, procedure.isFinished, procedure.didExecute))
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureFinished(produced)
        XCTAssertEqual(stateAtAdd.access?.executing, false)
        XCTAssertEqual(stateAtAdd.access?.finished, false)
        XCTAssertEqual(stateAtAdd.access?.executed, false)
    }

    func test__procedure_produce_operation_before_finish() {
        let produced = TestProcedure(name: "Produced")
        let finishedAtAdd = Protector<Bool?>(nil)
        procedure.addWillFinishBlockObserver { procedure, _, pendingFinish in
            try? procedure.produce(operation: produced, before: pendingFinish)
        }
        procedure.addWillAddOperationBlockObserver { procedure, _ in
            finishedAtAdd.overwrite(with: procedure.isFinished)
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureFinished(produced)
        XCTAssertEqual(finishedAtAdd.access, false)
    }

    func test__procedure_produce_operation_before_finish_async() {
        let produced = TestProcedure(name: "Produced")
        let stateAtAdd = Protector<(executing: Bool, finished: Bool)?>(nil)
        procedure.addWillFinishBlockObserver { procedure, _, pendingFinish in
            DispatchQueue.global().async {
                try? procedure.produce(operation: produced, before: pendingFinish)
            }
        }
        procedure.addWillAddOperationBlockObserver { procedure, _ in
            stateAtAdd.overwrite(with: (procedure.isExecuting, procedure.isFinished))
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureFinished(produced)
        XCTAssertEqual(stateAtAdd.access?.executing, false)
        XCTAssertEqual(stateAtAdd.access?.finished, false)
    }
}
