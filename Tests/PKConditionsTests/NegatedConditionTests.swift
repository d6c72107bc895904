import PKConditions
import PKTesting
import Testing

/// `NegatedCondition` and prefix `!`: satisfied becomes a failure, ignored or failed becomes satisfied.
struct NegatedConditionTests {

    @Test func negatedTrueCancelsWithConditionFailedNamingTheNegation() {
        let inner = TrueCondition()
        let condition = NegatedCondition(inner)
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.kitError == ProcedureKitError.conditionFailed())
        #expect(inner.output.outcome == "satisfied")
        #expect(condition.output.outcome == "failed")
    }

    @Test func negatedFalseExecutes() {
        let inner = FalseCondition()
        let condition = !inner
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(inner.output.outcome == "failed")
        #expect(condition.output.outcome == "satisfied")
    }

    @Test func negatedIgnoredExecutes() {
        let procedure = TestProcedure()
        procedure.add(condition: !BlockCondition { false })
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test func nameCategoriesAndOperator() {
        let inner = TrueCondition(mutuallyExclusiveCategory: "db")
        let condition: NegatedCondition = !inner
        #expect(condition.conditionName == "Not<TrueCondition>")
        #expect(condition.condition === inner)
        #expect(condition.mutuallyExclusiveCategories == ["db"])
        #expect((!(!FalseCondition())).conditionName == "Not<Not<FalseCondition>>")
    }

    @Test func doubleNegationRestoresTheResult() {
        let procedure = TestProcedure()
        procedure.add(condition: !(!FalseCondition()))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.kitError == ProcedureKitError.conditionFailed())
    }
}
