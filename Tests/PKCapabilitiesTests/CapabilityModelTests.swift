import Foundation
import PKCapabilities
import PKTesting
import Testing

/// The generic model: `AuthorizationStatus`, `Capability.VoidStatus`, `AnyCapability` and the test capability's
/// status table.
struct CapabilityModelTests {

    @Test func voidStatusValuesAreAllEqual() {
        #expect(Capability.VoidStatus() == Capability.VoidStatus())
    }

    @Test func voidStatusMeetsEveryRequirement() {
        #expect(Capability.VoidStatus().meets(requirement: ()))
        #expect(Capability.VoidStatus().meets(requirement: nil))
    }

    @Test(arguments: [
        (TestableCapability.Status.unknown, TestableCapability.Status.Requirement?.some(.minimum), false),
        (.restricted, .minimum, false),
        (.denied, .minimum, false),
        (.minimumAuthorized, .minimum, true),
        (.minimumAuthorized, .maximum, false),
        (.minimumAuthorized, nil, true),
        (.maximumAuthorized, .minimum, true),
        (.maximumAuthorized, .maximum, true),
        (.maximumAuthorized, nil, true),
        (.denied, nil, false),
    ])
    func testableStatusMeetsOnlyTheLevelsItAuthorizes(
        status: TestableCapability.Status, requirement: TestableCapability.Status.Requirement?, meets: Bool
    ) {
        #expect(status.meets(requirement: requirement) == meets)
    }

    @Test func anyCapabilityForwardsEveryQuestion() {
        let capability = TestableCapability(
            requirement: .maximum, serviceIsAvailable: false, serviceAuthorizationStatus: .denied,
            responseAuthorizationStatus: .minimumAuthorized)
        let erased = AnyCapability(capability)
        #expect(erased.requirement == .maximum)
        #expect(!erased.isAvailable())
        let statuses = Box<[TestableCapability.Status]>([])
        erased.getAuthorizationStatus { status in statuses.update { $0.append(status) } }
        erased.requestAuthorization { statuses.update { $0.append(capability.serviceAuthorizationStatus) } }
        #expect(statuses.value == [.denied, .minimumAuthorized])
        #expect(erased.baseTypeName == "TestableCapability")
        #expect(erased.unavailableReason() == nil)
        #expect(erased.unauthorizedReason(for: .denied) == nil)
    }

    @Test func wrappingAnAnyCapabilityKeepsTheBaseTypeName() {
        let erased = AnyCapability(AnyCapability(TestableCapability()))
        #expect(erased.baseTypeName == "TestableCapability")
    }
}

/// The `async` bridges: status and authorization with `try await`, cancellable.
struct AsyncCapabilityTests {

    @Test(arguments: [false, true])
    func authorizationStatusReadsWithoutRequesting(asynchronous: Bool) async throws {
        let capability = TestableCapability(isAsynchronous: asynchronous, serviceAuthorizationStatus: .denied)
        let status = try await capability.authorizationStatus()
        #expect(status == .denied)
        #expect(capability.didCheckAuthorizationStatus)
        #expect(!capability.didRequestAuthorization)
    }

    @Test(arguments: [false, true])
    func requestAuthorizationRequestsThenReturnsTheNewStatus(asynchronous: Bool) async throws {
        let capability = TestableCapability(
            isAsynchronous: asynchronous, responseAuthorizationStatus: .minimumAuthorized)
        let status = try await capability.requestAuthorization()
        #expect(status == .minimumAuthorized)
        #expect(capability.requestCount == 1)
    }

    @Test func requestAuthorizationOfAnUnavailableCapabilityThrowsUnavailableWithoutAsking() async {
        let capability = TestableCapability(serviceIsAvailable: false)
        await #expect(throws: ProcedureKitError.capabilityUnavailable()) {
            try await capability.requestAuthorization()
        }
        #expect(!capability.didRequestAuthorization)
    }

    @Test func cancellingTheTaskEndsAStatusReadThatNeverAnswers() async {
        let capability = TestableCapability()
        capability.statusResponse = .never
        let task = Task { try await capability.authorizationStatus() }
        await eventually("the status to be asked for") { capability.didCheckAuthorizationStatus }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
    }

    @Test func cancellingTheTaskEndsARequestThatIsHeldAndIgnoresTheLateAnswer() async {
        let capability = TestableCapability()
        capability.requestResponse = .hold
        let task = Task { try await capability.requestAuthorization() }
        await eventually("the request to be made") { capability.heldResponseCount == 1 }
        task.cancel()
        await #expect(throws: CancellationError.self) { try await task.value }
        capability.releaseHeldResponses()  // the late answer reaches a continuation that has already resumed
        #expect(capability.serviceAuthorizationStatus == .maximumAuthorized)
    }

    @Test func anAlreadyCancelledTaskDoesNotAskTheCapability() async {
        let capability = TestableCapability()
        let task = Task {
            withUnsafeCurrentTask { $0?.cancel() }
            return try await capability.authorizationStatus()
        }
        await #expect(throws: CancellationError.self) { try await task.value }
        #expect(!capability.didCheckAuthorizationStatus)
    }
}
