import Foundation
import PKConditions
import PKTesting
import XCTest

final class NegatedConditionTests: ProcedureKitTestCase {

    func test__procedure_with_negated_true_condition_cancels_with_error() {
        procedure.add(condition: NegatedCondition(TrueCondition()))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.conditionFailed())
    }

    func test__procedure_with_negated_false_condition_finishes() {
        procedure.add(condition: NegatedCondition(FalseCondition()))
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func test__procedure_with_negated_ignored_condition_finishes() {
        procedure.add(condition: NegatedCondition(IgnoredCondition(FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__negated_condition_name() {
        XCTAssertEqual(NegatedCondition(FalseCondition()).name, "Not<FalseCondition>")
    }
}
