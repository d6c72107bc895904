import Foundation
import PKCapabilities
import PKTesting
import Testing

/// `AuthorizedFor`: not exclusive by default, produces an authorization, fails unavailable or unauthorized.
struct AuthorizedForTests {

    private func attached(
        _ capability: TestableCapability, category: String? = nil
    ) -> (TestProcedure, AuthorizedFor<TestableCapability.Status>) {
        let procedure = TestProcedure()
        let condition = AuthorizedFor(capability, category: category)
        procedure.add(condition: condition)
        return (procedure, condition)
    }

    @Test func isNotMutuallyExclusiveByDefault() {
        let condition = AuthorizedFor(TestableCapability())
        #expect(!condition.isMutuallyExclusive)
        #expect(condition.mutuallyExclusiveCategories.isEmpty)
    }

    @Test func aCategoryMakesItMutuallyExclusiveInExactlyThatCategory() {
        let condition = AuthorizedFor(TestableCapability(), category: "testing")
        #expect(condition.mutuallyExclusiveCategories == ["testing"])
    }

    @Test func producesAnAuthorizeCapabilityProcedureDependency() {
        let condition = AuthorizedFor(TestableCapability())
        #expect(condition.producedDependencies.count == 1)
        #expect(condition.producedDependencies.first is AuthorizeCapabilityProcedure<TestableCapability.Status>)
        #expect(condition.name == "AuthorizedFor(TestableCapability)")
    }

    @Test(arguments: [false, true])
    func anUnavailableCapabilityCancelsTheProcedureWithCapabilityUnavailable(asynchronous: Bool) async {
        let capability = TestableCapability(isAsynchronous: asynchronous, serviceIsAvailable: false)
        let (procedure, condition) = attached(capability)
        await run(procedure)
        PKExpectConditionFailed(
            condition.output.value ?? .success(true), failedWithError: ProcedureKitError.capabilityUnavailable())
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnavailable())
        #expect(procedure.errors.count == 1)
        #expect(!procedure.didExecute)
    }

    @Test(arguments: [false, true])
    func aStatusBelowTheRequirementCancelsTheProcedureWithCapabilityUnauthorized(asynchronous: Bool) async {
        let capability = TestableCapability(
            requirement: .maximum, isAsynchronous: asynchronous, responseAuthorizationStatus: .minimumAuthorized)
        let (procedure, condition) = attached(capability)
        await run(procedure)
        PKExpectConditionFailed(
            condition.output.value ?? .success(true), failedWithError: ProcedureKitError.capabilityUnauthorized())
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        #expect(procedure.errors.count == 1)
        #expect(!procedure.didExecute)
    }

    @Test(arguments: [false, true])
    func aStatusMeetingTheRequirementLetsTheProcedureRun(asynchronous: Bool) async {
        let capability = TestableCapability(isAsynchronous: asynchronous)
        let (procedure, condition) = attached(capability)
        await run(procedure)
        PKExpectConditionSatisfied(condition.output.value ?? .success(false))
        PKExpectProcedureFinished(procedure)
        #expect(procedure.didExecute)
        PKExpectTestCapabilityAuthorizationRequested(capability, count: 1)
    }

    @Test func negatedWithNoFailedDependenciesRunsBecauseTheProducedAuthorizationIsNotADependency() async {
        let capability = TestableCapability(requirement: .maximum, responseAuthorizationStatus: .minimumAuthorized)
        let procedure = TestProcedure()
        procedure.add(condition: NegatedCondition(AuthorizedFor(capability)))
        procedure.add(condition: NoFailedDependenciesCondition())
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(procedure.didExecute)
    }

    @Test func negatedWithNoFailedDependenciesRunsWhenTheProducedAuthorizationTimesOut() async {
        let clock = ManualClock()
        let capability = TestableCapability()
        capability.requestResponse = .never
        let procedure = TestProcedure()
        procedure.add(condition: NegatedCondition(AuthorizedFor(capability, timeout: .seconds(5), clock: clock)))
        procedure.add(condition: NoFailedDependenciesCondition())
        defer { procedure.cancel() }  // never left holding a category, whatever happens
        ProcedureQueue().add(procedure: procedure)
        await advance(clock, by: .seconds(5), until: [procedure])
        // The failed authorization is the condition's; the status (unknown) fails AuthorizedFor, so Not<…> holds.
        PKExpectProcedureFinished(procedure)
    }

    @Test func silentConditionDecidesFromTheStatusWithoutRequesting() async {
        let capability = TestableCapability(serviceAuthorizationStatus: .denied)
        let procedure = TestProcedure()
        procedure.add(condition: SilentCondition(AuthorizedFor(capability)))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        PKExpectTestCapabilityStatusChecked(capability)
    }

    @Test func silentConditionLetsTheProcedureRunWhenAlreadyAuthorized() async {
        let capability = TestableCapability(serviceAuthorizationStatus: .maximumAuthorized)
        let procedure = TestProcedure()
        procedure.add(condition: SilentCondition(AuthorizedFor(capability)))
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(!capability.didRequestAuthorization)
    }

    @Test func anUnavailableCapabilityIsNeitherAskedToAuthorizeNorForItsStatus() async {
        let capability = TestableCapability(serviceIsAvailable: false)
        let (procedure, _) = attached(capability)
        await run(procedure)
        #expect(!capability.didRequestAuthorization)
        // The produced authorization read the status once (it always reports); the condition did not.
        #expect(capability.statusCheckCount == 1)
    }

    @Test func theErrorCarriesTheCapabilitysReason() async throws {
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let missing = directory.file("absent")
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(Capability.FileAccess(.read, at: missing)))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        #expect(procedure.kitError?.underlyingError as? FileAccessError == .missing(path: missing))
    }

    @Test func aStatusThatNeverComesFailsTheConditionWithATimeout() async {
        let clock = ManualClock()
        let capability = TestableCapability(serviceAuthorizationStatus: .maximumAuthorized)
        capability.statusResponse = .never
        let procedure = TestProcedure()
        procedure.add(condition: SilentCondition(AuthorizedFor(capability, timeout: .seconds(3), clock: clock)))
        ProcedureQueue().add(procedure: procedure)
        #expect(await clock.waitForScheduledActions(count: 1))
        clock.advance(by: .seconds(3))
        await finished([procedure])
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.timedOut(with: .by(3)))
        #expect(!procedure.didExecute)
    }

    @Test func cancellingTheProcedureWhileTheStatusIsAwaitedFinishesIt() async {
        let capability = TestableCapability(serviceAuthorizationStatus: .maximumAuthorized)
        capability.statusResponse = .hold
        let procedure = TestProcedure()
        procedure.add(condition: SilentCondition(AuthorizedFor(capability)))
        ProcedureQueue().add(procedure: procedure)
        await eventually("the status read to be held") { capability.heldResponseCount == 1 }
        procedure.cancel()
        await finished([procedure])
        PKExpectProcedureCancelled(procedure)
        capability.releaseHeldResponses()
        #expect(!procedure.didExecute)
    }

    @Test func cancellingTheProcedureWhileTheAuthorizationIsHeldCancelsTheAuthorization() async {
        let capability = TestableCapability()
        capability.requestResponse = .hold
        let (procedure, condition) = attached(capability)
        let authorization = condition.producedDependencies.first as? Procedure
        ProcedureQueue().add(procedure: procedure)
        await eventually("the request to be held") { capability.heldResponseCount == 1 }
        procedure.cancel()
        await finished([procedure] + (authorization.map { [$0] } ?? []))
        PKExpectProcedureCancelled(procedure)
        #expect(authorization?.isCancelled == true)
        capability.releaseHeldResponses()
    }
}
