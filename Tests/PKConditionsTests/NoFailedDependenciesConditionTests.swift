import PKConditions
import PKTesting
import Testing

/// `NoFailedDependenciesCondition`: failed direct dependencies fail it (checked first), cancelled ones fail it or
/// (with `ignoreCancellations`) ignore it.
struct NoFailedDependenciesConditionTests {

    /// Runs `procedure` (with the condition) after `dependencies` on one queue and waits for all of them.
    private func run(_ procedure: TestProcedure, after dependencies: [Procedure], ignoreCancellations: Bool = false) {
        let condition = NoFailedDependenciesCondition(ignoreCancellations: ignoreCancellations)
        procedure.add(condition: condition)
        procedure.addDependencies(dependencies)
        let queue = ProcedureQueue()
        queue.add(procedures: dependencies + [procedure])
        waitForAll(dependencies + [procedure])
    }

    private func cancelledDependency(error: (any Error)? = nil) -> TestProcedure {
        let dependency = TestProcedure(name: "Cancelled")
        dependency.cancel(with: error)
        return dependency
    }

    @Test func name() {
        #expect(NoFailedDependenciesCondition().conditionName == "NoFailedDependencies")
    }

    @Test func noDependenciesExecutes() {
        let procedure = TestProcedure()
        run(procedure, after: [])
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test func successfulDependenciesExecute() {
        let procedure = TestProcedure()
        run(procedure, after: [TestProcedure(name: "D1"), TestProcedure(name: "D2")])
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test func failedDependencyCancelsWithDependenciesFailed() {
        let error = TestError()
        let procedure = TestProcedure()
        run(procedure, after: [TestProcedure(name: "D1"), TestProcedure(name: "Failing", error: error)])
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        let reported = procedure.kitError
        #expect(reported == ProcedureKitError.dependenciesFailed())
        #expect(reported?.underlyingErrors.compactMap { $0 as? TestError } == [error])
    }

    @Test func cancelledDependencyCancelsWithDependenciesCancelled() {
        let procedure = TestProcedure()
        run(procedure, after: [cancelledDependency()])
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.kitError == ProcedureKitError.dependenciesCancelled())
    }

    @Test func ignoringCancellationsCancelsWithoutErrorAndDoesNotExecute() {
        let procedure = TestProcedure()
        run(procedure, after: [cancelledDependency()], ignoreCancellations: true)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
    }

    @Test(arguments: [false, true])
    func dependencyCancelledWithAnErrorCountsAsFailed(ignoreCancellations: Bool) {
        let procedure = TestProcedure()
        run(procedure, after: [cancelledDependency(error: TestError())], ignoreCancellations: ignoreCancellations)
        #expect(!procedure.didExecute)
        #expect(procedure.kitError == ProcedureKitError.dependenciesFailed())
    }

    @Test func failuresAreCheckedBeforeCancellations() {
        let procedure = TestProcedure()
        run(procedure, after: [cancelledDependency(), TestProcedure(name: "Failing", error: TestError())])
        #expect(procedure.kitError == ProcedureKitError.dependenciesFailed())
    }

    @Test func dependenciesOfOtherConditionsAreNotLookedAt() {
        let failing = TestProcedure(name: "ConditionDependency", error: TestError())
        let other = RecordingCondition()
        other.produceDependency(failing)
        let procedure = TestProcedure()
        procedure.add(condition: other)
        run(procedure, after: [TestProcedure(name: "D1")])
        #expect(failing.isFinished)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }
}
