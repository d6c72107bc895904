import Foundation
import PKConditions
import PKTesting
import Testing

/// Dependencies of conditions: direct ones are waited for, produced ones are run by the framework after the
/// procedure's own dependencies and before evaluating, and requirements turn their failures into condition
/// failures.
struct ConditionDependencyTests {

    @Test func directDependencyIsWaitedForBeforeEvaluating() {
        let dependency = GateProcedure(name: "Direct")
        let condition = RecordingCondition { _ in #expect(dependency.isFinished) }
        condition.addDependency(dependency)
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        let queue = ProcedureQueue()
        queue.add(procedures: dependency, procedure)
        waitFor(dependency.started, "the direct dependency to start")
        #expect(condition.evaluateCount == 0)
        dependency.open()
        waitForAll(dependency, procedure)
        #expect(condition.evaluateCount == 1)
        #expect(procedure.didExecute)
        #expect(!procedure.dependencies.contains(dependency))
    }

    @Test func producedDependencyRunsBeforeEvaluating() {
        let produced = TestProcedure(name: "Produced")
        let condition = RecordingCondition { _ in #expect(produced.isFinished) }
        condition.produceDependency(produced)
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(produced.didExecute)
        #expect(condition.evaluateCount == 1)
        #expect(procedure.didExecute)
        #expect(procedure.dependencies.isEmpty)
        // A finished procedure's waiters resume a moment before its queue lets go of it: wait for the queue, which
        // must not keep the produced dependency.
        waitUntilEmpty(queue)
        #expect(!queue.operations.contains(produced))
    }

    @Test func producedDependencyRunsAfterTheProcedureDirectDependencies() {
        let d1 = TestProcedure(name: "D1", delay: 0.05)
        let d2 = TestProcedure(name: "D2", delay: 0.1)
        let trail = Trail()
        let produced = ProbeProcedure(name: "Produced") { probe in
            trail.append("produced ran; D1 finished: \(d1.isFinished), D2 finished: \(d2.isFinished)")
            probe.finish()
        }
        let condition = RecordingCondition()
        condition.produceDependency(produced)
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        procedure.addDependencies(d1, d2)
        ProcedureQueue().add(procedures: d1, d2, procedure)
        waitForAll(d1, d2, procedure)
        #expect(trail.entries == ["produced ran; D1 finished: true, D2 finished: true"])
        #expect(procedure.didExecute)
    }

    @Test func producedDependencyIsCancelledWhenAnotherConditionFailsFirst() {
        let longRunning = GateProcedure(name: "LongRunning")
        let waiting = RecordingCondition(name: "Waiting")
        waiting.produceDependency(longRunning)
        let procedure = TestProcedure()
        procedure.add(condition: waiting)
        procedure.add(condition: FalseCondition())
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(procedure.errors.first as? ProcedureKitError.FalseCondition == ProcedureKitError.FalseCondition())
        #expect(waiting.evaluateCount == 0)
        if longRunning.isEnqueued {
            #expect(longRunning.isCancelled)
            waitForAll(longRunning)
        }
        longRunning.open()
    }

    @Test func userDirectDependencyIsNotCancelledWhenAnotherConditionFails() {
        let direct = GateProcedure(name: "Direct")
        let waiting = RecordingCondition(name: "Waiting")
        waiting.addDependency(direct)
        let procedure = TestProcedure()
        procedure.add(condition: waiting)
        procedure.add(condition: FalseCondition())
        let queue = ProcedureQueue()
        queue.add(procedures: direct, procedure)
        waitForAll(procedure)
        #expect(!direct.isCancelled)
        direct.open()
        waitForAll(direct)
        #expect(!direct.isCancelled)
    }

    @Test func sameOperationCanBeAProcedureDependencyAndAConditionDependency() {
        let shared = TestProcedure(name: "Shared")
        let condition = RecordingCondition { _ in #expect(shared.isFinished) }
        condition.addDependency(shared)
        let procedure = TestProcedure()
        procedure.addDependency(shared)
        procedure.add(condition: condition)
        #expect(procedure.dependencies.count == 1)
        ProcedureQueue().add(procedures: shared, procedure)
        waitForAll(shared, procedure)
        #expect(condition.evaluateCount == 1)
        #expect(procedure.didExecute)
    }

    // MARK: - Requirements

    enum DependencyOutcome: String, Sendable, CaseIterable {
        case succeeded, failed, cancelled, cancelledWithError
    }

    struct RequirementCase: Sendable, CustomStringConvertible {
        let requirements: Condition.DependencyRequirements
        let outcome: DependencyOutcome
        /// `nil` when `evaluate` must run; otherwise the expected error context.
        let expectedFailure: String?

        var description: String { "\(requirements.rawValue) with a \(outcome) dependency" }
    }

    static let requirementCases: [RequirementCase] = [
        RequirementCase(requirements: .none, outcome: .failed, expectedFailure: nil),
        RequirementCase(requirements: .none, outcome: .cancelled, expectedFailure: nil),
        RequirementCase(requirements: .noFailed, outcome: .succeeded, expectedFailure: nil),
        RequirementCase(requirements: .noFailed, outcome: .failed, expectedFailure: "failed"),
        RequirementCase(requirements: .noFailed, outcome: .cancelled, expectedFailure: nil),
        RequirementCase(requirements: .noFailed, outcome: .cancelledWithError, expectedFailure: "failed"),
        RequirementCase(
            requirements: [.noFailed, .ignoreFailedIfCancelled], outcome: .cancelledWithError, expectedFailure: nil),
        RequirementCase(
            requirements: [.noFailed, .ignoreFailedIfCancelled], outcome: .failed, expectedFailure: "failed"),
        RequirementCase(requirements: .noCancelled, outcome: .cancelled, expectedFailure: "cancelled"),
        RequirementCase(requirements: .noCancelled, outcome: .failed, expectedFailure: nil),
        RequirementCase(requirements: .noFailedOrCancelled, outcome: .cancelled, expectedFailure: "cancelled"),
        RequirementCase(requirements: .noFailedOrCancelled, outcome: .cancelledWithError, expectedFailure: "failed"),
        RequirementCase(requirements: .noFailedOrCancelled, outcome: .succeeded, expectedFailure: nil),
    ]

    private static func dependency(_ outcome: DependencyOutcome) -> TestProcedure {
        switch outcome {
        case .succeeded: return TestProcedure(name: "Dependency")
        case .failed: return TestProcedure(name: "Dependency", error: TestError())
        case .cancelled:
            let dependency = TestProcedure(name: "Dependency")
            dependency.cancel()
            return dependency
        case .cancelledWithError:
            let dependency = TestProcedure(name: "Dependency")
            dependency.cancel(with: TestError())
            return dependency
        }
    }

    @Test(arguments: requirementCases, [true, false])
    func requirementsDecideWhetherEvaluateRuns(_ testCase: RequirementCase, produced: Bool) {
        let dependency = Self.dependency(testCase.outcome)
        let condition = RecordingCondition(name: "Checked")
        condition.dependencyRequirements = testCase.requirements
        let queue = ProcedureQueue()
        if produced {
            condition.produceDependency(dependency)
        } else {
            condition.addDependency(dependency)
            queue.add(procedure: dependency)
        }
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        queue.add(procedure: procedure)
        waitForAll(dependency, procedure)
        switch testCase.expectedFailure {
        case nil:
            #expect(condition.evaluateCount == 1)
            #expect(procedure.didExecute)
        case "failed":
            #expect(condition.evaluateCount == 0)
            #expect(!procedure.didExecute)
            PKExpectProcedureCancelled(procedure, withErrors: true)
            #expect(
                procedure.errors.first as? ProcedureKitError.ConditionDependenciesFailed == .init(condition: condition))
        default:
            #expect(condition.evaluateCount == 0)
            #expect(!procedure.didExecute)
            PKExpectProcedureCancelled(procedure, withErrors: true)
            #expect(
                procedure.errors.first as? ProcedureKitError.ConditionDependenciesCancelled
                    == .init(condition: condition))
        }
    }
}
