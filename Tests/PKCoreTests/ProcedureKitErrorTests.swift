import PKTesting
import Testing

@testable import PKCore

struct ProcedureKitErrorTests {

    @Test func equalityComparesContextsOnly() {
        #expect(ProcedureKitError.noQueue() == ProcedureKitError.noQueue())
        #expect(
            ProcedureKitError.conditionFailed("C", with: [TestError()])
                == ProcedureKitError.conditionFailed("C", with: []))
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
        (.conditionFailed("C"), "The condition C failed"),
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
        let error = ProcedureKitError.conditionFailed("C", with: [underlying])
        #expect(error.description == "The condition C failed (\(underlying))")
        #expect(error.underlyingError as? TestError == underlying)
        #expect(error.underlyingErrors.count == 1)
    }

    @Test func factoriesCarryTheirErrors() {
        let errors: [any Error] = [TestError(), TestError()]
        #expect(ProcedureKitError.parent(cancelledWithErrors: errors).underlyingErrors.count == 2)
        #expect(ProcedureKitError.dependency(finishedWithErrors: errors).context == .dependencyFinishedWithErrors)
        #expect(ProcedureKitError.dependency(cancelledWithErrors: errors).context == .dependencyCancelledWithErrors)
    }

    @Test func testErrorsAreUniqueAndEqualToThemselves() {
        let error = TestError()
        #expect(error == error)
        #expect(TestError() != TestError())
    }
}
