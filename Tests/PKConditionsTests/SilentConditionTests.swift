import PKConditions
import PKTesting
import Testing

/// `SilentCondition`: drops the inner condition's produced dependencies, passes its result through.
struct SilentConditionTests {

    @Test func removesTheInnerProducedDependenciesAtInit() {
        let inner = RecordingCondition()
        inner.produceDependency(TestProcedure(name: "Prompt"))
        let condition = SilentCondition(inner)
        #expect(inner.producedDependencies.isEmpty)
        #expect(condition.conditionName == "Silent<RecordingCondition>")
    }

    @Test func producedDependencyNeverRunsAndProcedureExecutes() {
        let prompt = TestProcedure(name: "Prompt")
        let inner = RecordingCondition()
        inner.produceDependency(prompt)
        let procedure = TestProcedure()
        procedure.add(condition: SilentCondition(inner))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        #expect(inner.evaluateCount == 1)
        #expect(!prompt.didExecute)
        #expect(!prompt.isEnqueued)
    }

    @Test func passesAFailureThrough() {
        let procedure = TestProcedure()
        procedure.add(condition: SilentCondition(FalseCondition()))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
    }

    @Test func passesIgnoredThrough() {
        let condition = SilentCondition(BlockCondition { false })
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        #expect(condition.output.outcome == "ignored")
    }

    @Test func keepsTheInnerCategories() {
        #expect(SilentCondition(TrueCondition(mutuallyExclusiveCategory: "db")).mutuallyExclusiveCategories == ["db"])
    }
}
