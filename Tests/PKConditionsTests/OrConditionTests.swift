import PKConditions
import PKTesting
import Testing

/// `OrCondition` and `||`: one must hold; names, duplicates, categories, aggregation and short-circuiting.
struct OrConditionTests {

    private func run(_ condition: Condition) -> TestProcedure {
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        return procedure
    }

    @Test func nameListsTheChildren() {
        #expect(OrCondition([TrueCondition(), FalseCondition()]).conditionName == "Or<TrueCondition, FalseCondition>")
        #expect(
            (TrueCondition() && FalseCondition() || TrueCondition(name: "C")).conditionName
                == "Or<And<TrueCondition, FalseCondition>, C>")
    }

    @Test func operatorFlattensNestedOrs() {
        let (a, b, c) = (TrueCondition(name: "A"), TrueCondition(name: "B"), TrueCondition(name: "C"))
        #expect((a || b || c).conditions.map(\.conditionName) == ["A", "B", "C"])
        #expect((a || (b || c)).conditions.count == 3)
    }

    @Test func duplicatesAreRemovedKeepingOrder() {
        let a = FalseCondition(name: "A")
        let or = OrCondition([a, TrueCondition(name: "B"), a])
        #expect(or.conditions.map(\.conditionName) == ["A", "B"])
    }

    @Test func categoriesAreTheUnionOfTheChildren() {
        let or = TrueCondition(mutuallyExclusiveCategory: "x") || FalseCondition(mutuallyExclusiveCategory: "y")
        #expect(or.mutuallyExclusiveCategories == ["x", "y"])
    }

    @Test func oneSatisfiedExecutes() {
        let condition = FalseCondition() || TrueCondition()
        let procedure = run(condition)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(condition.output.outcome == "satisfied")
    }

    @Test func allFailingCancelsWithFailedConditionsHoldingEveryError() {
        let first = TestError()
        let procedure = run(BlockCondition { throw first } || FalseCondition(name: "B"))
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        let failed = procedure.errors.first as? ProcedureKitError.FailedConditions
        #expect(failed?.errors.count == 2)
        #expect((failed?.errors.first as? ProcedureKitError)?.underlyingError as? TestError == first)
        #expect(failed?.errors.last is ProcedureKitError.FalseCondition)
    }

    @Test func nestedFailingOrsEndWithAnError() {
        let procedure = run((FalseCondition() || FalseCondition()) && (FalseCondition() || FalseCondition()))
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
    }

    @Test func ignoredAndFailedCancelsWithTheFailure() {
        let procedure = run(BlockCondition { false } || FalseCondition())
        #expect(!procedure.didExecute)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
    }

    @Test func allIgnoredCancelsWithoutError() {
        let procedure = run(BlockCondition { false } || BlockCondition { false })
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func emptyCancelsWithoutError() {
        let procedure = run(OrCondition([]))
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func firstSatisfiedEndsTheEvaluationAndCancelsTheOthers() {
        let stuck = StuckCondition()
        let procedure = run(stuck || TrueCondition())
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        waitFor(stuck.cancelled, "the stuck condition to be told the evaluation was cancelled")
    }

    @Test func nestedAndInsideOr() {
        #expect(run((FalseCondition() && TrueCondition()) || TrueCondition()).didExecute)
        #expect(!run((FalseCondition() && TrueCondition()) || FalseCondition()).didExecute)
    }
}
