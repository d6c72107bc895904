import Foundation
import PKConditions
import PKTesting
import XCTest

final class NoFailedDependenciesConditionTests: ProcedureKitTestCase {

    override func setUp() {
        super.setUp()
        procedure.add(condition: NoFailedDependenciesCondition())
    }

    func test__procedure_with_no_dependencies_finishes() {
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
    }

    func test__procedure_with_successful_dependency_finishes() {
        let dependency = TestProcedure(name: "Dependency")
        procedure.addDependency(dependency)
        wait(for: dependency, procedure)
        PKAssertProcedureFinished(procedure)
        XCTAssertTrue(procedure.didExecute)
    }

    func test__procedure_with_cancelled_dependency_cancels_with_error() {
        let dependency = createCancellingProcedure()
        procedure.addDependency(dependency)
        wait(for: dependency, procedure)
        PKAssertProcedureCancelled(dependency)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.dependenciesCancelled())
    }

    func test__procedure_with_mixture_of_successful_and_cancelled_dependencies_cancels_with_error() {
        let successful = TestProcedure(name: "Successful")
        let cancelled = createCancellingProcedure()
        procedure.addDependencies(successful, cancelled)
        wait(for: successful, cancelled, procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.dependenciesCancelled())
    }

    func test__procedure_with_failing_dependency_cancels_with_error() {
        let error = TestError()
        let dependency = TestProcedure(name: "Failing", error: error)
        procedure.addDependency(dependency)
        wait(for: dependency, procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.dependenciesFailed())
        let underlying = (procedure.error as? ProcedureKitError)?.underlyingErrors
        XCTAssertEqual(underlying?.compactMap { $0 as? TestError }, [error])
    }

    func test__procedure_with_group_dependency_with_failing_child_cancels_with_error() {
        let error = TestError()
        let group = GroupProcedure(operations: [TestProcedure(), TestProcedure(error: error)])
        procedure.addDependency(group)
        wait(for: group, procedure)
        PKAssertProcedureFinishedWithError(group, error)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.dependenciesFailed())
    }

    func test__procedure_with_ignored_cancellations_and_cancelled_dependency_cancels_without_errors() {
        let procedure = TestProcedure(name: "Ignoring cancellations")
        procedure.add(condition: NoFailedDependenciesCondition(ignoreCancellations: true))
        let dependency = createCancellingProcedure()
        procedure.addDependency(dependency)
        wait(for: dependency, procedure)
        PKAssertProcedureCancelled(procedure)
        XCTAssertFalse(procedure.didExecute)
    }

    func test__procedure_with_ignored_cancellations_and_failures_cancels_with_error() {
        let procedure = TestProcedure(name: "Ignoring cancellations")
        procedure.add(condition: NoFailedDependenciesCondition(ignoreCancellations: true))
        let successful = TestProcedure(name: "Successful")
        let cancelled = createCancellingProcedure()
        let failing = TestProcedure(name: "Failing", error: TestError())
        procedure.addDependencies(successful, cancelled, failing)
        wait(for: successful, cancelled, failing, procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.dependenciesFailed())
    }
}
