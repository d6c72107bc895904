import Foundation
import PKConditions
import PKTesting
import XCTest

/// A queue delegate that makes `target` depend on `dependency` as the queue is about to add it.
private final class AddDependencyDelegate: ProcedureQueueDelegate, Sendable {
    let target: Procedure
    let dependency: Procedure

    init(target: Procedure, dependency: Procedure) {
        self.target = target
        self.dependency = dependency
    }

    func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?) {
        if procedure === target { procedure.addDependency(dependency) }
    }
}

final class ConditionTests: ProcedureKitTestCase {

    /// A condition that counts its evaluations and answers `result`.
    private func countingCondition(
        _ counter: Counter, producedDependencies: [Operation] = [], result: ConditionResult = .success(true)
    ) -> TestCondition {
        TestCondition(producedDependencies: producedDependencies) {
            counter.increment()
            return result
        }
    }

    /// Evaluates `condition` on its own, for `procedure`.
    private func evaluate(_ condition: Condition) -> ConditionResult? {
        let result = Protector<ConditionResult?>(nil)
        let done = DispatchSemaphore(value: 0)
        condition.evaluate(procedure: procedure) {
            result.overwrite(with: $0)
            done.signal()
        }
        XCTAssertSignalled(done)
        return result.access
    }

    // MARK: - Condition properties

    func test__condition__produce_dependency() {
        let condition = TrueCondition()
        let dependency = TestProcedure()
        condition.produceDependency(dependency)
        XCTAssertEqual(condition.producedDependencies, [dependency])
        XCTAssertTrue(condition.dependencies.isEmpty)
    }

    func test__condition__add_dependency() {
        let condition = TrueCondition()
        let dependency = TestProcedure()
        condition.addDependency(dependency)
        XCTAssertEqual(condition.dependencies, [dependency])
        XCTAssertTrue(condition.producedDependencies.isEmpty)
    }

    func test__condition__remove_dependency() {
        let condition = TrueCondition()
        let added = TestProcedure(name: "Added")
        let produced = TestProcedure(name: "Produced")
        condition.addDependency(added)
        condition.produceDependency(produced)
        condition.removeDependency(produced)
        XCTAssertTrue(condition.producedDependencies.isEmpty)
        XCTAssertEqual(condition.dependencies, [added])
        condition.removeDependency(added)
        XCTAssertTrue(condition.dependencies.isEmpty)
    }

    func test__condition__name() {
        let condition = TrueCondition()
        condition.name = "Test Condition"
        XCTAssertEqual(condition.name, "Test Condition")
    }

    func test__condition__mutually_exclusive_categories() {
        let condition = TrueCondition()
        XCTAssertTrue(condition.mutuallyExclusiveCategories.isEmpty)
        condition.addToAttachedProcedure(mutuallyExclusiveCategory: "test")
        condition.addToAttachedProcedure(mutuallyExclusiveCategory: "other")
        XCTAssertEqual(condition.mutuallyExclusiveCategories, ["test", "other"])
        XCTAssertTrue(condition.isMutuallyExclusive)
    }

    func test__condition__equality() {
        let condition = TrueCondition()
        let alias = condition
        XCTAssertEqual(condition, condition)
        XCTAssertEqual(alias, condition)
        XCTAssertNotEqual(TrueCondition(), TrueCondition())
    }

    // MARK: - Unit tests

    func test__true_condition_is_satisfied() {
        let result = evaluate(TrueCondition())
        XCTAssertNotNil(result)
        if let result { PKAssertConditionSatisfied(result) }
    }

    func test__false_condition_is_failed() {
        let result = evaluate(FalseCondition())
        XCTAssertNotNil(result)
        if let result { PKAssertConditionFailed(result, failedWithError: ProcedureKitError.FalseCondition()) }
    }

    // MARK: - Conditions attached to a procedure

    func test__single_condition_which_is_satisfied() {
        procedure.add(condition: TrueCondition())
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func test__single_condition_which_is_failed() {
        procedure.add(condition: FalseCondition())
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
        XCTAssertFalse(procedure.didExecute)
    }

    func test__multiple_conditions_where_all_are_satisfied() {
        procedure.add(condition: TrueCondition())
        procedure.add(condition: TrueCondition())
        procedure.add(condition: TrueCondition())
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__multiple_conditions_where_all_fail() {
        procedure.add(condition: FalseCondition())
        procedure.add(condition: FalseCondition())
        procedure.add(condition: FalseCondition())
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
        XCTAssertEqual(procedure.errors.count, 1)
    }

    func test__multiple_conditions_where_one_succeeds() {
        procedure.add(condition: TrueCondition())
        procedure.add(condition: FalseCondition())
        procedure.add(condition: FalseCondition())
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__multiple_conditions_where_one_fails() {
        procedure.add(condition: TrueCondition())
        procedure.add(condition: TrueCondition())
        procedure.add(condition: FalseCondition())
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__long_running_condition_with_dependency_is_cancelled_if_a_result_is_determined_by_another_condition() {
        let started = DispatchSemaphore(value: 0)
        let longRunning = makeWaitingProcedure(name: "Long running dependency", started: started)
        procedure.add(condition: TestCondition(producedDependencies: [longRunning]) { .success(true) })
        procedure.add(
            condition: AsyncTestCondition { completion in
                DispatchQueue.global().async {
                    _ = started.wait(timeout: .now() + 5)
                    completion(.failure(ProcedureKitError.FalseCondition()))
                }
            })
        addExpectationCompletionBlockTo(procedure: longRunning)
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
        PKAssertProcedureCancelled(longRunning)
    }

    // MARK: - Dependency requirements of conditions

    func test__condition_dependency_requirement_none_still_evaluates_when_dependency_fails() {
        let evaluated = Counter()
        let condition = countingCondition(evaluated, producedDependencies: [TestProcedure(error: TestError())])
        XCTAssertEqual(condition.dependencyRequirements, .none)
        procedure.add(condition: condition)
        wait(for: procedure)
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
    }

    func test__condition_dependency_requirement_noFailed_skips_evaluate_when_dependency_fails() {
        let evaluated = Counter()
        let condition = countingCondition(evaluated, producedDependencies: [TestProcedure(error: TestError())])
        condition.dependencyRequirements = .noFailed
        procedure.add(condition: condition)
        wait(for: procedure)
        XCTAssertEqual(evaluated.count, 0)
        PKAssertProcedureCancelledWithError(
            procedure, ProcedureKitError.ConditionDependenciesFailed(condition: condition))
    }

    func test__condition_dependency_requirement_noFailed_ignores_dependency_cancelled_without_errors() {
        let evaluated = Counter()
        let condition = countingCondition(evaluated, producedDependencies: [createCancellingProcedure()])
        condition.dependencyRequirements = .noFailed
        procedure.add(condition: condition)
        wait(for: procedure)
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
    }

    func test__condition_dependency_requirement_noFailed_skips_evaluate_when_dependency_iscancelled_with_errors() {
        let evaluated = Counter()
        let dependency = TestProcedure()
        dependency.cancel(with: TestError())
        let condition = countingCondition(evaluated, producedDependencies: [dependency])
        condition.dependencyRequirements = .noFailed
        procedure.add(condition: condition)
        wait(for: procedure)
        XCTAssertEqual(evaluated.count, 0)
        PKAssertProcedureCancelledWithError(
            procedure, ProcedureKitError.ConditionDependenciesFailed(condition: condition))
    }

    func test__condition_dependency_requirement_noCancelled_skips_evaluate_when_dependency_is_cancelled() {
        let evaluated = Counter()
        let dependency = TestProcedure()
        dependency.cancel(with: TestError())
        let condition = countingCondition(evaluated, producedDependencies: [dependency])
        condition.dependencyRequirements = .noCancelled
        procedure.add(condition: condition)
        wait(for: procedure)
        XCTAssertEqual(evaluated.count, 0)
        PKAssertProcedureCancelledWithError(
            procedure, ProcedureKitError.ConditionDependenciesCancelled(condition: condition))
    }

    func test__condition_dependency_requirement_noCancelled_ignores_non_cancelled_failures() {
        let evaluated = Counter()
        let condition = countingCondition(evaluated, producedDependencies: [TestProcedure(error: TestError())])
        condition.dependencyRequirements = .noCancelled
        procedure.add(condition: condition)
        wait(for: procedure)
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
    }

    func test__condition_dependency_requirement_noFailed_with_ignoreCancellations() {
        let cancelledWithError = TestProcedure(name: "Cancelled with error")
        cancelledWithError.cancel(with: TestError())
        let evaluatedFirst = Counter()
        let first = countingCondition(evaluatedFirst, producedDependencies: [cancelledWithError])
        first.dependencyRequirements = [.noFailed, .ignoreFailedIfCancelled]
        procedure.add(condition: first)

        let failing = TestProcedure(name: "Failing", error: TestError())
        let evaluatedSecond = Counter()
        let second = countingCondition(evaluatedSecond, producedDependencies: [failing])
        second.dependencyRequirements = [.noFailed, .ignoreFailedIfCancelled]
        let other = TestProcedure(name: "Other")
        other.add(condition: second)

        wait(for: procedure, other)
        XCTAssertEqual(evaluatedFirst.count, 1)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(evaluatedSecond.count, 0)
        PKAssertProcedureCancelledWithError(other, ProcedureKitError.ConditionDependenciesFailed(condition: second))
    }

    // MARK: - Conditions with dependencies

    func test__dependencies_execute_before_condition_dependencies() {
        let dependency1 = TestProcedure(name: "Dependency 1", delay: 0.01)
        let dependency2 = TestProcedure(name: "Dependency 2")
        procedure.addDependencies(dependency1, dependency2)
        let seen = Protector<[Bool]>([])
        for _ in 0..<2 {
            let condition = TrueCondition()
            condition.produceDependency(
                BlockOperation { seen.append(dependency1.isFinished && dependency2.isFinished) })
            procedure.add(condition: condition)
        }
        wait(for: dependency1, dependency2, procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(seen.access, [true, true])
    }

    func test__procedure_dependencies_only_contain_direct_dependencies() {
        procedure.addDependencies(TestProcedure(name: "Direct 1"), TestProcedure(name: "Direct 2"))
        for index in 0..<2 {
            let condition = TrueCondition()
            condition.produceDependency(TestProcedure(name: "Produced \(index)"))
            procedure.add(condition: condition)
        }
        XCTAssertEqual(procedure.dependencies.count, 2)
    }

    func test__target_and_condition_have_same_dependency() {
        let dependency = TestProcedure(name: "Dependency")
        let condition = TrueCondition()
        condition.addDependency(dependency)
        procedure.add(condition: condition)
        procedure.addDependency(dependency)
        wait(for: dependency, procedure)
        PKAssertProcedureFinished(dependency)
        PKAssertProcedureFinished(procedure)
    }

    func test__procedure_is_direct_dependency_and_indirect_of_different_procedures() {
        let dependency = TestProcedure(name: "Dependency")
        let procedure1 = TestProcedure(name: "Procedure 1")
        procedure1.addDependency(dependency)
        let condition1 = TrueCondition()
        condition1.addDependency(dependency)
        procedure1.add(condition: condition1)
        let procedure2 = TestProcedure(name: "Procedure 2")
        let condition2 = TrueCondition()
        condition2.addDependency(dependency)
        procedure2.add(condition: condition2)
        procedure2.addDependency(procedure1)
        wait(for: procedure1, dependency, procedure2)
        PKAssertProcedureFinished(dependency)
        PKAssertProcedureFinished(procedure1)
        PKAssertProcedureFinished(procedure2)
    }

    func test__dependency_added_by_queue_delegate_will_add_also_affects_evaluating_conditions() {
        let started = DispatchSemaphore(value: 0)
        let dependency = makeWaitingProcedure(name: "Dependency", started: started)
        run(operation: dependency)
        XCTAssertSignalled(started)
        let evaluated = Counter()
        procedure.add(condition: countingCondition(evaluated))
        let addDependency = AddDependencyDelegate(target: procedure, dependency: dependency)
        queue.delegate = addDependency
        addCompletionBlockTo(procedure: procedure)
        run(operation: procedure)
        XCTAssertTrue(procedure.dependencies.contains { $0 === dependency })
        XCTAssertEqual(evaluated.count, 0)
        XCTAssertFalse(procedure.isFinished)
        dependency.finish()
        waitForPendingExpectations()
        withExtendedLifetime(addDependency) {}
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
    }

    func test__dependency_added_before_another_dependency_finishes_also_affects_conditions() {
        let started = DispatchSemaphore(value: 0)
        let late = makeWaitingProcedure(name: "Late dependency", started: started)
        run(operation: late)
        XCTAssertSignalled(started)
        let procedure = self.procedure!
        let first = TestProcedure(name: "First dependency")
        first.addWillFinishBlockObserver { _, _, _ in procedure.addDependency(late) }
        let firstFinished = DispatchSemaphore(value: 0)
        first.addDidFinishBlockObserver { _, _ in firstFinished.signal() }
        procedure.addDependency(first)
        let evaluated = Counter()
        procedure.add(condition: countingCondition(evaluated))
        addCompletionBlockTo(procedure: procedure)
        run(operations: first, procedure)
        XCTAssertSignalled(firstFinished)
        XCTAssertEqual(evaluated.count, 0)
        XCTAssertFalse(procedure.isFinished)
        late.finish()
        waitForPendingExpectations()
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
    }

    // MARK: - Ignored conditions

    func test__ignored_failing_condition_does_not_result_in_failure() {
        let ignoring = TestProcedure(name: "Ignoring")
        ignoring.add(condition: IgnoredCondition(FalseCondition()))
        procedure.add(condition: FalseCondition())
        wait(for: ignoring, procedure)
        PKAssertProcedureCancelled(ignoring)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__ignored_satisfied_condition_does_not_result_in_failure() {
        let ignoring = TestProcedure(name: "Ignoring")
        ignoring.add(condition: IgnoredCondition(TrueCondition()))
        procedure.add(condition: TrueCondition())
        wait(for: ignoring, procedure)
        PKAssertProcedureFinished(ignoring)
        PKAssertProcedureFinished(procedure)
    }

    func test__ignored_ignored_condition_does_not_result_in_failure() {
        procedure.add(condition: IgnoredCondition(IgnoredCondition(FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func test__ignored_failing_condition_plus_successful_condition_does_not_execute() {
        procedure.add(condition: IgnoredCondition(FalseCondition()))
        procedure.add(condition: TrueCondition())
        wait(for: procedure)
        // Differs from ProcedureKit: an ignored condition stops the procedure even if another one is satisfied.
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
    }

    // MARK: - Compound conditions

    func test__compound_condition_produced_dependencies() {
        let conditions: [Condition] = (0..<3).map { index in
            let condition = TrueCondition()
            condition.produceDependency(TestProcedure(name: "Produced \(index)"))
            return condition
        }
        let compound = CompoundCondition(andPredicateWith: conditions)
        XCTAssertTrue(compound.producedDependencies.isEmpty)
        let produced = TestProcedure(name: "Compound's own")
        compound.produceDependency(produced)
        XCTAssertEqual(compound.producedDependencies, [produced])
    }

    func test__compound_condition_added_dependencies() {
        let conditions: [Condition] = (0..<3).map { index in
            let condition = TrueCondition()
            condition.addDependency(TestProcedure(name: "Dependency \(index)"))
            return condition
        }
        let compound = CompoundCondition(andPredicateWith: conditions)
        XCTAssertTrue(compound.dependencies.isEmpty)
        let dependency = TestProcedure(name: "Compound's own")
        compound.addDependency(dependency)
        XCTAssertEqual(compound.dependencies, [dependency])
    }

    func test__compound_condition_mutually_exclusive_categories() {
        let same = CompoundCondition(
            andPredicateWith: (0..<3).map { _ in TrueCondition(mutuallyExclusiveCategory: "test") })
        XCTAssertEqual(same.mutuallyExclusiveCategories, ["test"])
        let different = CompoundCondition(
            andPredicateWith: (0..<3).map { TrueCondition(mutuallyExclusiveCategory: "test\($0)") })
        XCTAssertEqual(different.mutuallyExclusiveCategories, ["test0", "test1", "test2"])
    }

    func test__compound_condition_and_predicate_filters_duplicates() {
        let evaluated = Counter()
        let condition = countingCondition(evaluated)
        procedure.add(condition: CompoundCondition(andPredicateWith: condition, condition, condition))
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertEqual(evaluated.count, 1)
    }

    func test__compound_condition_or_predicate_filters_duplicates() {
        let evaluated = Counter()
        let condition = countingCondition(evaluated, result: .success(false))
        procedure.add(condition: CompoundCondition(orPredicateWith: condition, condition, condition))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
        XCTAssertEqual(evaluated.count, 1)
    }

    // MARK: - AND

    func test__and_condition__with_no_conditions_cancels_without_errors() {
        procedure.add(condition: AndCondition([]))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func test__and_condition__with_two_successful_conditions__succeeds() {
        procedure.add(condition: AndCondition(TrueCondition(), TrueCondition()))
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__and_condition__with_failing_and_successful_conditions__fails() {
        procedure.add(condition: AndCondition(FalseCondition(), TrueCondition()))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__and_condition__with_successful_and_ignored_condition__does_not_execute() {
        procedure.add(condition: AndCondition(IgnoredCondition(FalseCondition()), TrueCondition()))
        wait(for: procedure)
        // Differs from ProcedureKit: an ignored condition inside an AND is not outweighed by a satisfied one.
        PKAssertProcedureCancelled(procedure)
    }

    func test__and_condition__with_failing_and_ignored_condition__fails() {
        procedure.add(condition: AndCondition(IgnoredCondition(FalseCondition()), FalseCondition()))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__nested_failing_and_conditions() {
        procedure.add(
            condition: AndCondition(
                AndCondition(FalseCondition(), FalseCondition()), AndCondition(FalseCondition(), FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__ignored_and_condition_does_not_fail() {
        procedure.add(condition: IgnoredCondition(AndCondition(TrueCondition(), FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    // MARK: - OR

    func test__or_condition__with_no_conditions_cancels_without_errors() {
        procedure.add(condition: OrCondition([]))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func test__or_condition__with_single_failing_condition__fails() {
        procedure.add(condition: OrCondition(FalseCondition()))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__or_condition__with_failing_and_successful_conditions__succeeds() {
        procedure.add(condition: OrCondition(FalseCondition(), TrueCondition()))
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__or_condition__with_successful_and_ignored_condition__succeeds() {
        procedure.add(condition: OrCondition(IgnoredCondition(FalseCondition()), TrueCondition()))
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__or_condition__with_failing_and_ignored_condition__fails() {
        procedure.add(condition: OrCondition(IgnoredCondition(FalseCondition()), FalseCondition()))
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
    }

    func test__or_condition__with_two_ignored_conditions__does_not_fail() {
        procedure.add(condition: OrCondition(IgnoredCondition(FalseCondition()), IgnoredCondition(FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func test__nested_failing_or_conditions() {
        procedure.add(
            condition: OrCondition(
                OrCondition(FalseCondition(), FalseCondition()), OrCondition(FalseCondition(), FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure, withErrors: true)
        let failed = procedure.error as? ProcedureKitError.FailedConditions
        XCTAssertEqual(failed?.errors.count, 4)
        XCTAssertEqual(failed?.errors.compactMap { $0 as? ProcedureKitError.FalseCondition }.count, 4)
    }

    func test__ignored_or_condition_does_not_fail() {
        procedure.add(condition: IgnoredCondition(OrCondition(FalseCondition())))
        wait(for: procedure)
        PKAssertProcedureCancelled(procedure)
    }

    func test__condition_operators_build_compound_conditions() {
        let and = TrueCondition() && FalseCondition()
        let or = FalseCondition() || TrueCondition()
        let not = !TrueCondition()
        XCTAssertEqual(and.conditions.count, 2)
        XCTAssertEqual(or.conditions.count, 2)
        let negated = TestProcedure(name: "Negated")
        negated.add(condition: not)
        let ored = TestProcedure(name: "Or")
        ored.add(condition: or)
        procedure.add(condition: and)
        wait(for: procedure, negated, ored)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.FalseCondition())
        PKAssertProcedureCancelledWithError(negated, ProcedureKitError.conditionFailed())
        PKAssertProcedureFinished(ored)
    }

    // MARK: - Cancelling during evaluation

    func test__procedure_cancelled_while_conditions_are_being_evaluated_finishes_before_blocked_condition() {
        let evaluating = DispatchSemaphore(value: 0)
        let pendingCompletion = Protector<(@Sendable (ConditionResult) -> Void)?>(nil)
        procedure.add(
            condition: AsyncTestCondition { completion in
                pendingCompletion.overwrite(with: completion)
                evaluating.signal()
            })
        addCompletionBlockTo(procedure: procedure)
        run(operation: procedure)
        XCTAssertSignalled(evaluating)
        XCTAssertFalse(procedure.isFinished)
        procedure.cancel()
        waitForPendingExpectations()
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
        // The condition answers late; its answer is discarded.
        pendingCompletion.access?(.success(true))
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__procedure_cancelled_while_conditions_are_being_evaluated_cancels_condition_produced_dependencies() {
        let started = DispatchSemaphore(value: 0)
        let produced = makeWaitingProcedure(name: "Produced", started: started)
        let plain = TestProcedure(name: "Plain dependency, never scheduled")
        let condition = TrueCondition()
        condition.produceDependency(produced)
        condition.addDependency(plain)
        procedure.add(condition: AndCondition(TrueCondition(), condition))
        addCompletionBlockTo(procedure: procedure)
        addExpectationCompletionBlockTo(procedure: produced)
        run(operation: procedure)
        XCTAssertSignalled(started)
        procedure.cancel()
        waitForPendingExpectations()
        PKAssertProcedureCancelled(procedure)
        PKAssertProcedureCancelled(produced)
        XCTAssertFalse(plain.isCancelled)
        XCTAssertFalse(plain.isFinished)
    }

    // MARK: - When conditions are evaluated

    func test__conditions_are_not_evaluated_while_associated_procedurequeue_is_suspended() {
        let evaluated = Counter()
        procedure.add(condition: countingCondition(evaluated))
        queue.isSuspended = true
        addCompletionBlockTo(procedure: procedure)
        run(operation: procedure)
        // A procedure with a condition on another queue runs meanwhile, so evaluation had every chance to start.
        let elsewhere = TestProcedure(name: "Elsewhere")
        elsewhere.add(condition: TrueCondition())
        ProcedureQueue().add(procedure: elsewhere)
        XCTAssertTrue(ProcedureWaiter.wait(for: elsewhere, timeout: 3))
        XCTAssertEqual(evaluated.count, 0)
        XCTAssertFalse(procedure.isFinished)
        queue.isSuspended = false
        waitForPendingExpectations()
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
    }

    func test__conditions_on_added_children_are_not_evaluated_before_parent_group_executes() {
        let evaluated = Counter()
        procedure.add(condition: countingCondition(evaluated))
        let group = GroupProcedure(operations: [])
        group.addChild(procedure)
        XCTAssertEqual(evaluated.count, 0)
        wait(for: group)
        XCTAssertEqual(evaluated.count, 1)
        PKAssertProcedureFinished(procedure)
        PKAssertProcedureFinished(group)
    }
}
