import PKConditions
import PKTesting
import Testing

/// `AndCondition` and `&&`: all must hold; names, duplicates, categories and short-circuiting.
struct AndConditionTests {

    private func run(_ condition: Condition) -> TestProcedure {
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        return procedure
    }

    @Test func nameListsTheChildren() {
        #expect(
            AndCondition([TrueCondition(), FalseCondition()]).conditionName == "And<TrueCondition, FalseCondition>")
        #expect(AndCondition([]).conditionName == "And<>")
    }

    @Test func operatorFlattensNestedAnds() {
        let (a, b, c) = (TrueCondition(name: "A"), TrueCondition(name: "B"), TrueCondition(name: "C"))
        let and = a && b && c
        #expect(and.conditions.map(\.conditionName) == ["A", "B", "C"])
        #expect(and.conditionName == "And<A, B, C>")
        #expect((a && (b && c)).conditions.count == 3)
    }

    @Test func duplicatesAreRemovedKeepingOrderAndEvaluatedOnce() {
        let a = RecordingCondition(name: "A")
        let b = RecordingCondition(name: "B")
        let and = AndCondition([a, b, a])
        #expect(and.conditions.map(\.conditionName) == ["A", "B"])
        let procedure = run(and)
        #expect(procedure.didExecute)
        #expect(a.evaluateCount == 1)
        #expect(b.evaluateCount == 1)
    }

    @Test func categoriesAreTheUnionOfTheChildren() {
        let and = AndCondition([TrueCondition(mutuallyExclusiveCategory: "x"), MutuallyExclusive<Int>(category: "y")])
        #expect(and.mutuallyExclusiveCategories == ["x", "y"])
    }

    @Test func allSatisfiedExecutes() {
        let condition = TrueCondition() && BlockCondition { true }
        let procedure = run(condition)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(condition.output.outcome == "satisfied")
    }

    @Test func oneFailureCancelsWithThatFailure() {
        let procedure = run(TrueCondition() && FalseCondition())
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
    }

    @Test func ignoredAndSatisfiedDoesNotExecute() {
        let procedure = run(BlockCondition { false } && TrueCondition())
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func allIgnoredCancelsWithoutError() {
        let procedure = run(BlockCondition { false } && BlockCondition { false })
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func emptyCancelsWithoutError() {
        let condition = AndCondition([])
        let procedure = run(condition)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        #expect(condition.output.outcome == "ignored")
    }

    @Test func firstFailureEndsTheEvaluationAndCancelsTheOthers() {
        let stuck = StuckCondition()
        let procedure = run(stuck && FalseCondition())
        #expect(!procedure.didExecute)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
        waitFor(stuck.cancelled, "the stuck condition to be told the evaluation was cancelled")
    }

    @Test func nestedOrInsideAnd() {
        let procedure = run(AndCondition([TrueCondition(), FalseCondition() || TrueCondition()]))
        #expect(procedure.didExecute)
    }

    @Test func childOutputsAreSet() {
        let (a, b) = (TrueCondition(), BlockCondition { false })
        _ = run(a && b)
        #expect(a.output.outcome == "satisfied")
        #expect(b.output.outcome == "ignored")
    }
}
