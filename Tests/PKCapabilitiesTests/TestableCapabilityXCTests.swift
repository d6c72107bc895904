import PKCapabilities
import PKTesting
import XCTest

/// PKTesting's XCTest pieces for capabilities, used as a ProcedureKit user's suite would use them.
final class TestableCapabilityXCTests: TestableCapabilityTestCase {

    func testGetAuthorizationStatusSetsTheResult() {
        wait(for: getAuthorizationStatus)
        PKAssertGetAuthorizationStatus(getAuthorizationStatus.output.success, expected: (true, .unknown))
        PKAssertTestCapabilityStatusChecked(capability)
    }

    func testAuthorizeRequests() {
        wait(for: authorize)
        PKAssertTestCapabilityAuthorizationRequested(capability, count: 1)
    }

    func testAuthorizedForLetsTheProcedureRunWhenTheRequirementIsMet() {
        wait(for: procedure)
        PKAssertProcedureFinished(procedure)
        PKAssertConditionSatisfied(authorizedFor.output.value ?? .success(false))
    }

    func testAuthorizedForCancelsTheProcedureWhenTheRequirementIsNotMet() {
        capability.requirement = .maximum
        capability.responseAuthorizationStatus = .minimumAuthorized
        wait(for: procedure)
        PKAssertProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
    }

    func testTheChecksFindTheWrongOutcome() {
        wait(for: authorize)
        XCTAssertFalse(ProcedureCheck.testCapabilityStatusChecked(capability).isEmpty)
        XCTAssertFalse(ProcedureCheck.authorizationStatus(authorize.output.success, expected: (false, .denied)).isEmpty)
        XCTAssertEqual(
            ProcedureCheck.authorizationStatus(authorize.output.success, expected: (true, .maximumAuthorized)), [])
        XCTAssertFalse(ProcedureCheck.testCapabilityAuthorizationRequested(capability, count: 2).isEmpty)
        XCTAssertFalse(
            ProcedureCheck.authorizationStatus(
                nil as (isAvailable: Bool, status: TestableCapability.Status)?, expected: (true, .unknown)
            ).isEmpty)
    }
}
