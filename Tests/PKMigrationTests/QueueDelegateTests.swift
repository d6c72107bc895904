import Foundation
import PKTesting
import XCTest

final class QueueDelegateTests: ProcedureKitTestCase {

    /// Operations whose finish the delegate has reported, by identity, with an expectation each.
    private let finishExpectations = Protector<[ObjectIdentifier: XCTestExpectation]>([:])

    override func setUp() {
        super.setUp()
        let expectations = finishExpectations
        set(
            queueDelegate: QueueTestDelegate { callback in
                let finished: Operation
                switch callback {
                case .didFinishOperation(_, let operation): finished = operation
                case .didFinishProcedure(_, let procedure, _): finished = procedure
                default: return
                }
                expectations.read { $0[ObjectIdentifier(finished)] }?.fulfill()
            })
    }

    /// An expectation fulfilled when the delegate is told that `operation` finished.
    private func expectDelegateFinish(of operation: Operation) -> XCTestExpectation {
        let expectation = XCTestExpectation(description: "delegate told \(operation.operationName) finished")
        finishExpectations.write { $0[ObjectIdentifier(operation)] = expectation }
        return expectation
    }

    private func waitForDelegate(_ expectations: XCTestExpectation...) {
        XCTAssertEqual(XCTWaiter().wait(for: expectations, timeout: 3), .completed)
    }

    func test__delegate__operation_notifications() {
        let operation = BlockOperation {}
        let procedure = BlockProcedure {}
        procedure.addDependency(operation)
        let operationFinished = expectDelegateFinish(of: operation)
        let procedureFinished = expectDelegateFinish(of: procedure)
        queue.addOperations([operation, procedure], waitUntilFinished: false)
        waitForDelegate(operationFinished, procedureFinished)
        XCTAssertTrue(delegate.procedureQueueWillAddOperation.contains { $0.1 === operation })
        XCTAssertTrue(delegate.procedureQueueDidAddOperation.contains { $0.1 === operation })
        XCTAssertTrue(delegate.procedureQueueDidFinishOperation.contains { $0.1 === operation })
        XCTAssertTrue(delegate.procedureQueueDidFinishProcedure.contains { $0.1 === procedure })
    }

    func test___delegate__procedure_notifications() {
        let procedure = self.procedure!
        let finished = expectDelegateFinish(of: procedure)
        queue.add(procedure: procedure)
        waitForDelegate(finished)
        XCTAssertTrue(delegate.procedureQueueWillAddProcedure.contains { $0.1 === procedure })
        XCTAssertTrue(delegate.procedureQueueDidAddProcedure.contains { $0.1 === procedure })
        XCTAssertTrue(delegate.procedureQueueWillFinishProcedure.contains { $0.1 === procedure })
        XCTAssertTrue(delegate.procedureQueueDidFinishProcedure.contains { $0.1 === procedure })
        XCTAssertTrue(delegate.procedureQueueWillAddOperation.isEmpty)
    }

    func test__delegate__procedure_notifications_are_in_order() {
        let procedure = self.procedure!
        let finished = expectDelegateFinish(of: procedure)
        queue.add(procedure: procedure)
        waitForDelegate(finished)
        let kinds = delegate.allCallbacks.compactMap { callback -> String? in
            switch callback {
            case .willAddProcedure(_, let p, _) where p === procedure: "willAdd"
            case .didAddProcedure(_, let p, _) where p === procedure: "didAdd"
            case .willFinishProcedure(_, let p, _) where p === procedure: "willFinish"
            case .didFinishProcedure(_, let p, _) where p === procedure: "didFinish"
            default: nil
            }
        }
        XCTAssertEqual(kinds.sorted(), ["didAdd", "didFinish", "willAdd", "willFinish"])
        // Only these orders are promised: the procedure may start (and finish) before didAdd is delivered.
        XCTAssertEqual(kinds.first, "willAdd")
        XCTAssertLessThan(kinds.firstIndex(of: "willFinish") ?? .max, kinds.firstIndex(of: "didFinish") ?? .min)
    }

    func test__delegate__finish_callbacks_receive_the_procedure_errors() {
        let error = TestError()
        let procedure = TestProcedure(error: error)
        let finished = expectDelegateFinish(of: procedure)
        queue.add(procedure: procedure)
        waitForDelegate(finished)
        let willFinish = delegate.procedureQueueWillFinishProcedure.first { $0.1 === procedure }
        let didFinish = delegate.procedureQueueDidFinishProcedure.first { $0.1 === procedure }
        // Differs from ProcedureKit: the delegate receives the list of errors, not a single optional error.
        XCTAssertEqual(willFinish?.2.compactMap { $0 as? TestError }, [error])
        XCTAssertEqual(didFinish?.2.compactMap { $0 as? TestError }, [error])
    }

    func test__delegate__produced_operation_has_its_producer_as_context() {
        let produced = TestProcedure(name: "Produced")
        let producer = TestProcedure(name: "Producer", produced: produced)
        let finished = expectDelegateFinish(of: produced)
        queue.add(procedure: producer)
        waitForDelegate(finished)
        let willAdd = delegate.procedureQueueWillAddProcedure.first { $0.1 === produced }
        // Differs from ProcedureKit: there is no `addOperation(_:withContext:)`; the context is the producer.
        XCTAssertTrue(willAdd?.2 as? Procedure === producer)
    }

    func test__delegate__operationqueue_addoperation() {
        let operation = BlockOperation {}
        let finished = expectDelegateFinish(of: operation)
        queue.addOperation(operation)
        waitForDelegate(finished)
        XCTAssertTrue(delegate.procedureQueueWillAddOperation.contains { $0.1 === operation })
        XCTAssertTrue(delegate.procedureQueueDidAddOperation.contains { $0.1 === operation })
        XCTAssertTrue(delegate.procedureQueueDidFinishOperation.contains { $0.1 === operation })
    }

    func test__delegate__operationqueue_addoperation_waituntilfinished() {
        let ran = Flag()
        let operation = BlockOperation { ran.set() }
        let finished = expectDelegateFinish(of: operation)
        queue.addOperations([operation], waitUntilFinished: true)
        // Differs from ProcedureKit: `waitUntilFinished: true` waits for the operations; ProcedureKit ignored it.
        XCTAssertTrue(operation.isFinished)
        XCTAssertTrue(ran.isSet)
        waitForDelegate(finished)
        XCTAssertTrue(delegate.procedureQueueWillAddOperation.contains { $0.1 === operation })
        XCTAssertTrue(delegate.procedureQueueDidFinishOperation.contains { $0.1 === operation })
    }

    func test__delegate__operationqueue_addoperation_block() {
        let ran = Flag()
        queue.isSuspended = true
        queue.addOperation { ran.set() }
        XCTAssertEqual(queue.operations.count, 1)
        guard let operation = queue.operations.first as? BlockOperation else {
            return XCTFail("expected a BlockOperation on the queue, found \(queue.operations)")
        }
        let finished = expectDelegateFinish(of: operation)
        XCTAssertFalse(ran.isSet)
        queue.isSuspended = false
        waitForDelegate(finished)
        XCTAssertTrue(ran.isSet)
        XCTAssertTrue(delegate.procedureQueueDidAddOperation.contains { $0.1 === operation })
    }
}
