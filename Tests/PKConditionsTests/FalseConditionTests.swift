import PKConditions
import PKTesting
import Testing

/// `FalseCondition`: always fails with `ProcedureKitError.FalseCondition`, which reaches the procedure as it is.
struct FalseConditionTests {

    @Test func procedureIsCancelledWithFalseConditionAndDoesNotExecute() {
        let condition = FalseCondition()
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.errors.count == 1)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
        #expect(condition.output.outcome == "failed")
    }

    @Test func evaluationReportsFalseConditionDirectly() {
        let result = PKMutex<ConditionResult?>(nil)
        FalseCondition().evaluate(procedure: TestProcedure()) { outcome in result.withLock { $0 = outcome } }
        guard case .failure(let error)? = result.withLock({ $0 }) else {
            Issue.record("expected a failure")
            return
        }
        #expect(error as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
    }

    @Test func nameAndCategory() {
        #expect(FalseCondition().conditionName == "FalseCondition")
        #expect(FalseCondition(name: "No").conditionName == "No")
        #expect(FalseCondition(mutuallyExclusiveCategory: "db").mutuallyExclusiveCategories == ["db"])
    }
}
