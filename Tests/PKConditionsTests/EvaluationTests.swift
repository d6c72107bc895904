import Foundation
import PKConditions
import PKTesting
import Testing

/// When conditions are evaluated, and what cancellation, suspension and late additions do to an evaluation.
struct EvaluationTests {

    @Test func conditionsAreEvaluatedAfterTheProcedureDependenciesFinish() {
        let dependency = GateProcedure(name: "Dependency")
        let condition = RecordingCondition { _ in #expect(dependency.isFinished) }
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        procedure.add(condition: condition)
        ProcedureQueue().add(procedures: dependency, procedure)
        waitFor(dependency.started, "the dependency to start")
        #expect(condition.evaluateCount == 0)
        dependency.open()
        waitForAll(dependency, procedure)
        #expect(condition.evaluateCount == 1)
        #expect(procedure.didExecute)
    }

    @Test func everyConditionsOutputIsSet() {
        let (satisfied, ignored) = (TrueCondition(), BlockCondition { false })
        let procedure = TestProcedure()
        procedure.add(condition: ignored)
        procedure.add(condition: satisfied)
        #expect(satisfied.output.isPending)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(satisfied.output.outcome == "satisfied")
        #expect(ignored.output.outcome == "ignored")
    }

    @Test func cancellingDuringEvaluationFinishesPromptlyWithoutExecuting() {
        let stuck = StuckCondition()
        let procedure = TestProcedure()
        procedure.add(condition: stuck)
        ProcedureQueue().add(procedure: procedure)
        guard waitFor(stuck.evaluating, "the condition to be evaluated") else { return }
        procedure.cancel()
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        waitFor(stuck.cancelled, "the condition to be told the evaluation was cancelled")
    }

    @Test func cancellingWithAnErrorDuringEvaluationKeepsThatError() {
        let error = TestError()
        let stuck = StuckCondition()
        let procedure = TestProcedure()
        procedure.add(condition: stuck)
        ProcedureQueue().add(procedure: procedure)
        guard waitFor(stuck.evaluating, "the condition to be evaluated") else { return }
        procedure.cancel(with: error)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureError(procedure, equals: error)
        #expect(procedure.errors.count == 1)
    }

    @Test func cancelledBeforeEnqueueIsNotEvaluated() {
        let condition = RecordingCondition()
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(condition.evaluateCount == 0)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func suspendedQueueDefersEvaluationUntilResumed() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let condition = RecordingCondition()
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        queue.add(procedure: procedure)
        // Absence check: give a wrongly eager evaluation a moment to happen.
        #expect(condition.evaluated.wait(timeout: .now() + 0.2) == .timedOut)
        #expect(condition.evaluateCount == 0)
        #expect(!procedure.isFinished)
        queue.isSuspended = false
        waitForAll(procedure)
        #expect(condition.evaluateCount == 1)
        #expect(procedure.didExecute)
    }

    @Test func conditionAddedAfterEnqueueIsIgnored() {
        let queue = ProcedureQueue()
        queue.isSuspended = true
        let procedure = TestProcedure()
        queue.add(procedure: procedure)
        let late = FalseCondition()
        GlobalLogSettings.with(enabled: false) {
            procedure.add(condition: late)
        }
        #expect(procedure.conditions.isEmpty)
        queue.isSuspended = false
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(late.output.isPending)
    }

    @Test func conditionsAreListedInTheOrderAddedWithoutDuplicates() {
        let (a, b) = (TrueCondition(name: "A"), TrueCondition(name: "B"))
        let procedure = TestProcedure()
        procedure.add(condition: a)
        procedure.addCondition(b)
        procedure.add(condition: a)
        #expect(procedure.conditions.map(\.conditionName) == ["A", "B"])
    }

    @Test func manyProceduresWithFailingConditionsAllEndCancelled() {
        let queue = ProcedureQueue(maxConcurrentOperationCount: 4)
        let procedures = (0..<200).map { index -> TestProcedure in
            let procedure = TestProcedure(name: "P\(index)")
            procedure.add(condition: index.isMultiple(of: 2) ? FalseCondition() : TrueCondition())
            return procedure
        }
        queue.add(procedures: procedures)
        waitForAll(procedures)
        for (index, procedure) in procedures.enumerated() {
            #expect(procedure.didExecute == !index.isMultiple(of: 2))
            #expect(procedure.isCancelled == index.isMultiple(of: 2))
        }
    }
}
