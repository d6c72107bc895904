import Foundation
import PKTesting
import XCTest

final class BlockProcedureTests: ProcedureKitTestCase {

    func test__void_block_procedure() {
        let blockDidExecute = Flag()
        let block = BlockProcedure { blockDidExecute.set() }
        wait(for: block)
        XCTAssertTrue(blockDidExecute.isSet)
        PKAssertProcedureFinished(block)
    }

    func test__self_block_procedure() {
        let blockDidExecute = Flag()
        let block = BlockProcedure { procedure in
            procedure.log.debug.message("Hello from \(procedure.procedureName)")
            blockDidExecute.set()
            procedure.finish()
        }
        wait(for: block)
        XCTAssertTrue(blockDidExecute.isSet)
        PKAssertProcedureFinished(block)
    }

    func test__block_does_not_execute_if_cancelled() {
        let blockDidExecute = Flag()
        let block = BlockProcedure { blockDidExecute.set() }
        block.cancel()
        wait(for: block)
        XCTAssertFalse(blockDidExecute.isSet)
        PKAssertProcedureCancelled(block)
    }

    func test__block_which_throws_finishes_with_error() {
        let error = TestError()
        let block = BlockProcedure { throw error }
        wait(for: block)
        PKAssertProcedureFinishedWithError(block, error)
    }

    func test__block_did_execute_observer() {
        let observerCalled = Flag()
        let block = BlockProcedure {}
        block.addDidExecuteBlockObserver { _ in observerCalled.set() }
        wait(for: block)
        XCTAssertTrue(observerCalled.isSet)
        PKAssertProcedureFinished(block)
    }

    func test__self_block_procedure_which_does_not_finish_is_cancelled_after_its_timeout() {
        let clock = ManualClock()
        let block = BlockProcedure(timeout: 3, clock: clock) { _ in }
        addCompletionBlockTo(procedure: block)
        run(operation: block)
        XCTAssertTrue(clock.waitForScheduledActions(count: 1))
        XCTAssertFalse(block.isCancelled)
        clock.advance(by: 3)
        XCTAssertTrue(block.isCancelled)
        // Cancelled with the timeout error, the block procedure still finishes only when its block says so.
        XCTAssertFalse(block.isFinished)
        block.finish()
        waitForPendingExpectations()
        PKAssertProcedureCancelledWithError(block, ProcedureKitError.timedOut(with: .by(3)))
    }

    func test__self_block_procedure_which_finishes_in_time_is_not_cancelled() {
        let clock = ManualClock()
        let block = BlockProcedure(timeout: 3, clock: clock) { $0.finish() }
        waitIncludingDidFinish(forAll: [block])
        PKAssertProcedureFinished(block)
        XCTAssertEqual(clock.scheduledActionCount, 0)
    }
}

final class ResultProcedureTests: ProcedureKitTestCase {

    func test__throwing_output() {
        let result = ResultProcedure<String> { "Hello World" }
        wait(for: result)
        PKAssertProcedureOutput(result, "Hello World")
    }

    func test__throwing_block_finishes_with_error_and_failure_output() {
        let error = TestError()
        let result = ResultProcedure<String> { throw error }
        wait(for: result)
        PKAssertProcedureFinishedWithError(result, error)
        XCTAssertEqual(result.output.error as? TestError, error)
        XCTAssertNil(result.output.success)
    }

    func test__cancelled_result_procedure_does_not_run_its_block_and_output_stays_pending() {
        let blockDidExecute = Flag()
        let result = ResultProcedure<String> {
            blockDidExecute.set()
            return "Hello World"
        }
        result.cancel()
        wait(for: result)
        PKAssertProcedureCancelled(result)
        XCTAssertFalse(blockDidExecute.isSet)
        XCTAssertTrue(result.output.isPending)
    }
}

// Differs from ProcedureKit: its deprecated callback `AsyncBlockProcedure` is `AsyncResultProcedure<Void>` here.
final class AsyncBlockProcedureTests: ProcedureKitTestCase {

    func test__block_executes() {
        let blockDidExecute = Flag()
        let block = AsyncResultProcedure<Void> { finish in
            DispatchQueue.initiated.async {
                blockDidExecute.set()
                finish(success)
            }
        }
        wait(for: block)
        XCTAssertTrue(blockDidExecute.isSet)
        PKAssertProcedureFinished(block)
    }

    func test__block_does_not_execute_if_cancelled() {
        let blockDidExecute = Flag()
        let block = AsyncResultProcedure<Void> { finish in
            blockDidExecute.set()
            finish(success)
        }
        block.cancel()
        wait(for: block)
        XCTAssertFalse(blockDidExecute.isSet)
        PKAssertProcedureCancelled(block)
    }

    func test__block_which_finishes_with_error() {
        let error = TestError()
        let block = AsyncResultProcedure<Void> { finish in
            DispatchQueue.initiated.async { finish(.failure(error)) }
        }
        wait(for: block)
        PKAssertProcedureFinishedWithError(block, error)
    }

    func test__async_await_block_executes() {
        let blockDidExecute = Flag()
        let block = AsyncBlockProcedure { blockDidExecute.set() }
        wait(for: block)
        XCTAssertTrue(blockDidExecute.isSet)
        PKAssertProcedureFinished(block)
    }
}

/// ProcedureKit's shapes that the port first found missing.
final class ProcedureKitShapeTests: ProcedureKitTestCase {

    func test__result_procedure_with_a_block_given_itself() {
        let result = ResultProcedure<String> { procedure in "Hello \(procedure.procedureName)" }
        result.name = "World"
        wait(for: result)
        PKAssertProcedureOutput(result, "Hello World")
    }

    func test__async_block_procedure_with_a_completion_handler() {
        let blockDidExecute = Flag()
        let block = AsyncBlockProcedure { finish in
            DispatchQueue.initiated.async {
                blockDidExecute.set()
                finish(success)
            }
        }
        wait(for: block)
        XCTAssertTrue(blockDidExecute.isSet)
        PKAssertProcedureFinished(block)
    }

    func test__async_block_procedure_with_a_completion_handler_finishing_with_an_error() {
        let error = TestError()
        let block = AsyncBlockProcedure { finish in
            DispatchQueue.initiated.async { finish(.failure(error)) }
        }
        wait(for: block)
        PKAssertProcedureFinishedWithError(block, error)
    }

    func test__enqueue_a_sequence_of_operations_on_a_new_queue() {
        [procedure].enqueue()
        XCTAssertTrue(ProcedureWaiter.wait(for: procedure, timeout: 3))
        PKAssertProcedureFinished(procedure)
    }

    func test__reduce_dependency_with_trailing_closure() {
        let numbers = makeNumbersProcedure()
        let reduce = numbers.reduce(0) { $0 + $1 }
        wait(for: numbers, reduce)
        PKAssertProcedureOutput(reduce, 45)
    }
}
