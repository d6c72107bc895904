import PKTesting
import Testing

@testable import PKCore

struct ProcedureKitErrorTests {

    @Test func equalityComparesContextsOnly() {
        #expect(ProcedureKitError.noQueue() == ProcedureKitError.noQueue())
        #expect(
            ProcedureKitError.conditionFailed(with: TestError()) == ProcedureKitError.conditionFailed())
        #expect(
            ProcedureKitError.dependency(finishedWithError: TestError())
                == ProcedureKitError.dependency(finishedWithErrors: []))
        #expect(ProcedureKitError.timedOut(with: .by(1)) != ProcedureKitError.timedOut(with: .by(2)))
        #expect(ProcedureKitError.noQueue() != ProcedureKitError.taskCancelled())
        #expect(ProcedureKitError.dependencyCycle(["A", "B"]) != ProcedureKitError.dependencyCycle(["A"]))
        #expect(ProcedureKitError.programmingError(reason: "x") != ProcedureKitError.programmingError(reason: "y"))
    }

    @Test(arguments: [
        (ProcedureKitError.programmingError(reason: "oops"), "Programming error: oops"),
        (.noQueue(), "The procedure is not on a queue"),
        (.dependencyCycle(["A", "B"]), "Dependency cycle: A -> B"),
        (.taskCancelled(), "The awaiting Task was cancelled"),
        (.parent(cancelledWithErrors: []), "The parent was cancelled"),
        (.dependency(finishedWithErrors: []), "A dependency finished with errors"),
        (.dependency(cancelledWithErrors: []), "A dependency was cancelled"),
        (.conditionFailed(), "A condition failed"),
        (.timedOut(with: .by(2)), "Timed out (for 2.0 seconds)"),
        (.capabilityUnavailable(), "The capability is unavailable"),
        (
            ProcedureKitError(context: .childNotAdded("C")),
            "The group could not take its child C: it was already on a queue, executing or finished"
        ),
        (.requirementNotSatisfied(), "A requirement was not satisfied"),
        (ProcedureKitError(context: .notStartedByProcedureQueue), "The procedure was not started by a ProcedureQueue"),
        (ProcedureKitError(context: .multipleErrors), "Several errors"),
        (.unknown, "Unknown error"),
    ])
    func descriptionNamesTheContext(_ error: ProcedureKitError, _ expected: String) {
        #expect(error.description == expected)
    }

    @Test func descriptionListsUnderlyingErrors() {
        let underlying = TestError()
        let error = ProcedureKitError.conditionFailed(with: underlying)
        #expect(error.description == "A condition failed (\(underlying))")
        #expect(error.error as? TestError == underlying)
        #expect(error.underlyingError as? TestError == underlying)
        #expect(error.underlyingErrors.count == 1)
    }

    @Test func factoriesCarryTheirErrors() {
        let errors: [any Error] = [TestError(), TestError()]
        #expect(ProcedureKitError.parent(cancelledWithErrors: errors).underlyingErrors.count == 2)
        #expect(ProcedureKitError.dependency(finishedWithErrors: errors).context == .dependencyFinishedWithError)
        #expect(ProcedureKitError.dependency(cancelledWithErrors: errors).context == .dependencyCancelledWithError)
        #expect(ProcedureKitError.parent(cancelledWithError: nil).underlyingErrors.isEmpty)
        #expect(ProcedureKitError.dependency(finishedWithError: errors[0]).underlyingErrors.count == 1)
    }

    @Test func testErrorsAreUniqueAndEqualToThemselves() {
        let error = TestError()
        #expect(error == error)
        #expect(TestError() != TestError())
    }
}
