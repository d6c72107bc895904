import Foundation
import PKTesting
import XCTest

final class CancellationTests: ProcedureKitTestCase {

    func test__procedure_cancel_with_nil_error() {
        procedure.cancel(with: nil)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertFalse(procedure.failed)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__procedure_cancel_with_error() {
        let error = TestError()
        procedure.cancel(with: error)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertTrue(procedure.failed)
        XCTAssertEqual(procedure.error as? TestError, error)
    }

    func test__procedure_cancel_twice_keeps_the_first_cancel_errors() {
        let first = TestError()
        procedure.cancel(with: first)
        procedure.cancel(with: TestError())
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, first)
        XCTAssertEqual(procedure.errors.count, 1)
    }

    func test__procedure_did_cancel_called_after_cancelled() {
        let seen = Protector<(cancelled: Bool, overrideCalled: Bool)?>(nil)
        let didCancel = DispatchSemaphore(value: 0)
        procedure.addDidCancelBlockObserver { procedure, _ in
            seen.overwrite(with: (procedure.isCancelled, procedure.procedureDidCancelCalled))
            didCancel.signal()
        }
        procedure.cancel()
        XCTAssertSignalled(didCancel)
        XCTAssertEqual(seen.access?.cancelled, true)
        XCTAssertEqual(seen.access?.overrideCalled, true)
    }

    func test__procedure_did_cancel_observer_receives_the_cancel_errors() {
        let error = TestError()
        let received = Protector<[TestError]>([])
        let didCancel = DispatchSemaphore(value: 0)
        procedure.addDidCancelBlockObserver { _, errors in
            received.overwrite(with: errors.compactMap { $0 as? TestError })
            didCancel.signal()
        }
        procedure.cancel(with: error)
        XCTAssertSignalled(didCancel)
        XCTAssertEqual(received.access, [error])
    }

    func test__procedured_cancelled_before_running_is_not_set_to_finished_until_started() {
        let didCancel = DispatchSemaphore(value: 0)
        procedure.addDidCancelBlockObserver { _, _ in didCancel.signal() }
        procedure.cancel()
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertSignalled(didCancel)
        XCTAssertTrue(procedure.procedureDidCancelCalled)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertFalse(procedure.procedureWillFinishCalled)
        XCTAssertFalse(procedure.procedureDidFinishCalled)
        XCTAssertFalse(procedure.isFinished)

        waitIncludingDidFinish(forAll: [procedure])
        XCTAssertTrue(procedure.procedureWillFinishCalled)
        XCTAssertTrue(procedure.procedureDidFinishCalled)
        XCTAssertFalse(procedure.didExecute)
        PKAssertProcedureCancelled(procedure)
    }

    func test__procedure_with_disables_automatic_finishing_does_not_finish_automatically_when_cancelled() {
        let executing = DispatchSemaphore(value: 0)
        let didCancel = DispatchSemaphore(value: 0)
        let procedure = ExecutingProcedure(disableAutomaticFinishing: true) { _ in executing.signal() }
        procedure.addDidCancelBlockObserver { _, _ in didCancel.signal() }
        addCompletionBlockTo(procedure: procedure)
        run(operation: procedure)
        XCTAssertSignalled(executing)
        procedure.cancel()
        XCTAssertSignalled(didCancel)
        XCTAssertTrue(procedure.isCancelled)
        XCTAssertFalse(procedure.isFinished)
        procedure.finish()
        waitForPendingExpectations()
        PKAssertProcedureCancelled(procedure)
    }

    func test__procedure_cancelled_then_finished_from_within_execute() {
        let error = TestError()
        let procedure = ExecutingProcedure { procedure in
            procedure.cancel()
            procedure.finish(with: error)
        }
        waitIncludingDidFinish(forAll: [procedure])
        XCTAssertTrue(procedure.procedureDidCancelCalled)
        XCTAssertEqual(procedure.finishedWhenDidCancelRan, false)
        PKAssertProcedureCancelledWithError(procedure, error)
    }

    func test__procedure_cancelled_then_finished_async_during_execute() {
        let procedure = ExecutingProcedure { procedure in
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                procedure.cancel()
                procedure.finish()
                done.signal()
            }
            done.wait()
        }
        waitIncludingDidFinish(forAll: [procedure])
        XCTAssertTrue(procedure.procedureDidCancelCalled)
        PKAssertProcedureCancelled(procedure)
    }

    func test__procedure_finished_then_cancelled_from_within_execute() {
        let procedure = ExecutingProcedure { procedure in
            procedure.finish()
            procedure.cancel()
        }
        waitIncludingDidFinish(forAll: [procedure])
        PKAssertProcedureFinished(procedure)
        XCTAssertFalse(procedure.isCancelled)
        XCTAssertFalse(procedure.procedureDidCancelCalled)
    }

    func test__procedure_finished_then_cancelled_async_during_execute() {
        let procedure = ExecutingProcedure { procedure in
            let done = DispatchSemaphore(value: 0)
            DispatchQueue.global().async {
                procedure.finish()
                procedure.cancel()
                done.signal()
            }
            done.wait()
        }
        waitIncludingDidFinish(forAll: [procedure])
        PKAssertProcedureFinished(procedure)
        XCTAssertFalse(procedure.procedureDidCancelCalled)
    }

    func test__cancel_from_didcancel_observer_is_ignored() {
        procedure.addDidCancelBlockObserver { procedure, _ in
            procedure.cancel(with: TestError())
        }
        procedure.cancel()
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func test__cancel_from_willfinish_observer_is_ignored() {
        procedure.addWillFinishBlockObserver { procedure, _, _ in
            procedure.cancel(with: TestError())
        }
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertFalse(procedure.isCancelled)
    }

    func test__cancel_while_waiting_for_a_dependency_finishes_without_executing() {
        let started = DispatchSemaphore(value: 0)
        let dependency = makeWaitingProcedure(name: "Dependency", started: started)
        procedure.addDependency(dependency)
        addCompletionBlockTo(procedure: procedure)
        run(operations: dependency, procedure)
        XCTAssertSignalled(started)
        procedure.cancel()
        waitForPendingExpectations()
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
        XCTAssertFalse(dependency.isFinished)
        dependency.cancel()
    }
}
