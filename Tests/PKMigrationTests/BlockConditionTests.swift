import Foundation
import PKConditions
import PKTesting
import XCTest

final class BlockConditionTests: ProcedureKitTestCase {

    func test__procedure_with_successfull_block_finishes() {
        procedure.add(condition: BlockCondition { true })
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func test__procedure_with_unsuccessful_block_cancels_without_errors() {
        procedure.add(condition: BlockCondition { false })
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__procedure_with_throwing_block_cancels_with_error() {
        let error = TestError()
        procedure.add(condition: BlockCondition { throw error })
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.conditionFailed(with: error))
        XCTAssertEqual((procedure.error as? ProcedureKitError)?.underlyingError as? TestError, error)
    }
}
