import Foundation
import PKTesting
import XCTest

final class FinishingTests: ProcedureKitTestCase {

    func test__procedure_will_finish_is_called() {
        wait(for: procedure)
        XCTAssertTrue(procedure.procedureWillFinishCalled)
    }

    func test__procedure_did_finish_is_called() {
        waitIncludingDidFinish(forAll: [procedure])
        XCTAssertTrue(procedure.procedureDidFinishCalled)
    }

    func test__procedure_finish_on_other_thread_during_execute_finishes_after_execute_returns() {
        let executeReturned = Flag()
        let finishedBeforeExecuteReturned = Protector<Bool?>(nil)
        let procedure = ExecutingProcedure { procedure in
            let finished = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                procedure.finish()
                finished.signal()
            }
            finished.wait()
            finishedBeforeExecuteReturned.overwrite(with: procedure.isFinished)
            executeReturned.set()
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(finishedBeforeExecuteReturned.access, false)
        XCTAssertTrue(executeReturned.isSet)
    }

    func test__disabled_automatic_finishing_cancel_and_finish_on_will_execute_does_not_execute() {
        let procedure = ExecutingProcedure(disableAutomaticFinishing: true) { $0.finish() }
        procedure.addWillExecuteBlockObserver { procedure, _ in
            procedure.cancel()
            procedure.finish()
        }
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__cancelled_procedure_finish_called_before_execute_eventually_finishes() {
        let error = TestError()
        procedure.cancel()
        procedure.finish(with: error)
        XCTAssertFalse(procedure.isFinished)
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, error)
        XCTAssertEqual(procedure.errors.count, 1)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__cancelled_procedure_finish_called_before_execute_only_first_finish_succeeds() {
        let error = TestError()
        procedure.cancel()
        procedure.finish(with: error)
        procedure.finish()
        XCTAssertFalse(procedure.isFinished)
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, error)
        XCTAssertEqual(procedure.errors.count, 1)
    }

    func test__cancelled_procedure_finish_before_execute_from_didcancel_observer() {
        let error = TestError()
        let didCancel = DispatchSemaphore(value: 0)
        procedure.addDidCancelBlockObserver { procedure, _ in
            procedure.finish(with: error)
            didCancel.signal()
        }
        procedure.cancel()
        XCTAssertSignalled(didCancel)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertFalse(procedure.isFinished)
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, error)
    }

    func test__procedure_finish_from_willexecute_observer() {
        let error = TestError()
        procedure.addWillExecuteBlockObserver { procedure, _ in
            procedure.finish(with: error)
        }
        wait(for: procedure)
        PKAssertProcedureFinishedWithError(procedure, error)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__procedure_finish_after_cancel_from_willexecute_observer() {
        let error = TestError()
        procedure.addWillExecuteBlockObserver { procedure, _ in
            procedure.cancel()
            procedure.finish(with: error)
        }
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, error)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__finish_from_willfinish_observer_is_ignored() {
        procedure.addWillFinishBlockObserver { procedure, _, _ in
            procedure.finish(with: TestError())
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__finish_before_execute_without_cancelling_is_ignored() {
        procedure.finish(with: TestError())
        XCTAssertFalse(procedure.isFinished)
        wait(for: procedure)
        // Differs from ProcedureKit: finish() before start, without a cancel, is ignored with a warning, not asserted.
        PKAssertProcedureFinished(procedure)
        XCTAssertTrue(procedure.didExecute)
    }
}

final class FinishingConcurrencyTests: ProcedureKitTestCase {

    func test__finish_on_other_thread_synchronously_from_execute() {
        let serial = DispatchQueue(label: "run.kit.procedure.ProcedureKit.Testing.Finishing")
        let procedure = ExecutingProcedure { procedure in
            serial.sync { procedure.finish() }
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__finish_on_main_queue_synchronously_from_execute() {
        let procedure = ExecutingProcedure { procedure in
            DispatchQueue.main.sync { procedure.finish() }
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }
}
