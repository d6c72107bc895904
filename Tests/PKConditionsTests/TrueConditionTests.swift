import PKConditions
import PKTesting
import Testing

/// `TrueCondition`: always satisfied, optionally carrying a category.
struct TrueConditionTests {

    @Test func procedureExecutesAndOutputIsSatisfied() {
        let condition = TrueCondition()
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(condition.output.outcome == "satisfied")
    }

    @Test func nameAndCategory() {
        #expect(TrueCondition().conditionName == "TrueCondition")
        #expect(TrueCondition(name: "Yes").conditionName == "Yes")
        #expect(TrueCondition().mutuallyExclusiveCategories.isEmpty)
        #expect(!TrueCondition().isMutuallyExclusive)
        #expect(TrueCondition(mutuallyExclusiveCategory: "db").mutuallyExclusiveCategories == ["db"])
    }
}
