import Foundation
import PKConditions
import PKTesting
import XCTest

final class SilentConditionTests: ProcedureKitTestCase {

    func test__silent_condition_name() {
        XCTAssertEqual(SilentCondition(FalseCondition()).name, "Silent<FalseCondition>")
    }

    func test__silent_condition_removes_produced_dependencies() {
        let condition = TrueCondition()
        condition.produceDependency(TestProcedure())
        XCTAssertEqual(condition.producedDependencies.count, 1)
        let silent = SilentCondition(condition)
        XCTAssertEqual(condition.producedDependencies.count, 0)
        XCTAssertTrue(silent.producedDependencies.isEmpty)
    }

    func test__silent_condition_does_not_run_the_produced_dependency_and_passes_the_result_through() {
        let produced = TestProcedure(name: "Produced")
        let condition = FalseCondition()
        condition.produceDependency(produced)
        procedure.add(condition: SilentCondition(condition))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
        XCTAssertFalse(produced.didExecute)
    }
}
