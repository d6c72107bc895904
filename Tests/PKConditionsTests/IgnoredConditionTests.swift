import PKConditions
import PKTesting
import Testing

/// `IgnoredCondition`: a failure becomes "ignored"; other results pass through.
struct IgnoredConditionTests {

    @Test func ignoredFailureAloneCancelsWithoutError() {
        let condition = IgnoredCondition(FalseCondition())
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        #expect(condition.output.outcome == "ignored")
    }

    @Test func ignoredFailurePlusTrueConditionDoesNotExecute() {
        // ProcedureKit executed here (BEHAVIOUR §13.39); an ignored condition now always stops the procedure.
        let procedure = TestProcedure()
        procedure.add(condition: IgnoredCondition(FalseCondition()))
        procedure.add(condition: TrueCondition())
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func satisfiedPassesThrough() {
        let condition = IgnoredCondition(TrueCondition())
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        #expect(condition.output.outcome == "satisfied")
    }

    @Test func thrownErrorIsIgnored() {
        let procedure = TestProcedure()
        procedure.add(condition: IgnoredCondition(BlockCondition { throw TestError() }))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func name() {
        #expect(IgnoredCondition(FalseCondition()).conditionName == "Ignored<FalseCondition>")
    }
}
