import Foundation
import PKConditions
import PKTesting
import Testing

/// A composed condition of the tests' own: satisfied only when the inner condition is ignored.
private final class OnlyWhenIgnored: ComposedCondition, @unchecked Sendable {
    // @unchecked Sendable: no stored properties; ComposedCondition documents its locking.
    override func result(from innerResult: ConditionResult) -> ConditionResult {
        if case .success(false) = innerResult { return .success(true) }
        return .success(false)
    }
}

/// `ComposedCondition`: the extension point behind the wrappers; the inner condition keeps its dependencies,
/// requirements and categories, and its nested evaluation is cancelled with the outer one.
struct ComposedConditionTests {

    @Test func subclassMapsTheInnerResult() {
        let procedure = TestProcedure()
        procedure.add(condition: OnlyWhenIgnored(BlockCondition { false }))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
    }

    @Test func defaultPassesThroughAndNameIsTheTypeName() {
        let composed = ComposedCondition(FalseCondition())
        #expect(composed.conditionName == "ComposedCondition")
        let procedure = TestProcedure()
        procedure.add(condition: composed)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
    }

    @Test func innerProducedDependencyRunsBeforeTheInnerEvaluates() {
        let produced = TestProcedure(name: "Produced")
        let inner = RecordingCondition { _ in #expect(produced.isFinished) }
        inner.produceDependency(produced)
        let procedure = TestProcedure()
        procedure.add(condition: IgnoredCondition(inner))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(produced.didExecute)
        #expect(inner.evaluateCount == 1)
        #expect(procedure.didExecute)
    }

    @Test func innerDependencyRequirementsAreChecked() {
        let produced = TestProcedure(name: "Produced", error: TestError())
        let inner = RecordingCondition(name: "Inner")
        inner.produceDependency(produced)
        inner.dependencyRequirements = .noFailed
        let procedure = TestProcedure()
        procedure.add(condition: ComposedCondition(inner))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(inner.evaluateCount == 0)
        #expect(!procedure.didExecute)
        #expect(procedure.errors.first as? ProcedureKitError.ConditionDependenciesFailed == .init(condition: inner))
    }

    @Test func categoriesAreTheUnionOfInnerAndOwn() {
        let composed = ComposedCondition(TrueCondition(mutuallyExclusiveCategory: "inner"))
        composed.addToAttachedProcedure(mutuallyExclusiveCategory: "own")
        #expect(composed.mutuallyExclusiveCategories == ["inner", "own"])
    }

    @Test func cancellingTheProcedureCancelsTheNestedEvaluation() {
        let stuck = StuckCondition()
        let procedure = TestProcedure()
        procedure.add(condition: NegatedCondition(stuck))
        ProcedureQueue().add(procedure: procedure)
        guard waitFor(stuck.evaluating, "the inner condition to be evaluated") else { return }
        procedure.cancel()
        waitForAll(procedure)
        waitFor(stuck.cancelled, "the inner condition to be told the evaluation was cancelled")
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }
}
