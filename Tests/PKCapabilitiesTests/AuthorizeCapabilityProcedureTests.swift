import Foundation
import PKTesting
import Testing

@testable import PKCapabilities

/// `AuthorizeCapabilityProcedure`: requests, then reads; one at a time per capability type.
struct AuthorizeCapabilityProcedureTests {

    @Test(arguments: [false, true])
    func requestsAuthorizationThenReadsTheStatus(asynchronous: Bool) async {
        let capability = TestableCapability(
            isAsynchronous: asynchronous, responseAuthorizationStatus: .minimumAuthorized)
        let procedure = AuthorizeCapabilityProcedure(capability)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectTestCapabilityAuthorizationRequested(capability, count: 1)
        #expect(capability.didCheckIsAvailable)
        #expect(capability.didCheckAuthorizationStatus)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (true, .minimumAuthorized))
    }

    @Test func succeedsWhenTheStatusAfterTheRequestDoesNotMeetTheRequirement() async {
        let capability = TestableCapability(requirement: .maximum, responseAuthorizationStatus: .denied)
        let procedure = AuthorizeCapabilityProcedure(capability)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (true, .denied))
    }

    @Test func hasAMutuallyExclusiveConditionNamedAfterTheCapabilityType() {
        let procedure = AuthorizeCapabilityProcedure(TestableCapability())
        let exclusive = procedure.conditions.filter { $0.isMutuallyExclusive }
        #expect(exclusive.count == 1)
        #expect(exclusive.first is MutuallyExclusive<AuthorizeCapabilityProcedure<TestableCapability.Status>>)
        #expect(exclusive.first?.mutuallyExclusiveCategories == ["AuthorizeCapabilityProcedure(TestableCapability)"])
        #expect(procedure.name == "AuthorizeCapability(TestableCapability)")
    }

    @Test func twoAuthorizationsOfOneCapabilityTypeNeverRequestAtTheSameTime() async {
        let capability = HeldRequestCapability()
        let first = AuthorizeCapabilityProcedure(capability)
        let second = AuthorizeCapabilityProcedure(capability)
        let queue = ProcedureQueue()
        queue.add(procedures: first, second)
        await eventually("one request to be held") { capability.heldCount == 1 }
        // The other authorization has passed its conditions and waits for the category: it cannot request.
        let exclusive = [first, second].flatMap(\.conditions).filter(\.isMutuallyExclusive)
        await eventually("both exclusivity conditions to be evaluated") {
            exclusive.allSatisfy { !$0.output.isPending }
        }
        #expect(capability.heldCount == 1)
        capability.releaseAll()
        await eventually("the second request to be held") { capability.heldCount == 1 && capability.requestCount == 2 }
        capability.releaseAll()
        await finished([first, second])
        #expect(capability.mostAtOnce == 1)
        #expect(capability.requestCount == 2)
        PKExpectProcedureFinished(first)
        PKExpectProcedureFinished(second)
    }

    @Test func authorizationsOfDifferentCapabilityTypesMayRequestAtTheSameTime() async {
        let one = HeldRequestCapability()
        let other = OtherHeldRequestCapability()
        let first = AuthorizeCapabilityProcedure(one)
        let second = AuthorizeCapabilityProcedure(other)
        ProcedureQueue().add(procedures: first, second)
        await eventually("both requests to be held at once") { one.heldCount == 1 && other.inner.heldCount == 1 }
        one.releaseAll()
        other.inner.releaseAll()
        await finished([first, second])
        PKExpectProcedureFinished(first)
        PKExpectProcedureFinished(second)
    }

    @Test func anUnavailableCapabilityIsNotAskedToAuthorize() async {
        let capability = TestableCapability(serviceIsAvailable: false)
        let procedure = AuthorizeCapabilityProcedure(capability)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (false, .unknown))
        PKExpectTestCapabilityStatusChecked(capability)
    }

    @Test func aRequestThatNeverAnswersTimesOutOnTheClock() async {
        let clock = ManualClock()
        let capability = TestableCapability()
        capability.requestResponse = .never
        let procedure = AuthorizeCapabilityProcedure(capability, timeout: .seconds(10), clock: clock)
        defer { procedure.cancel() }  // never left holding its category, whatever happens
        ProcedureQueue().add(procedure: procedure)
        await advance(clock, by: .seconds(10), until: [procedure])
        #expect(capability.requestCount == 1)
        PKExpectProcedureFinishedWithError(procedure, ProcedureKitError.timedOut(with: .by(10)))
        #expect(!capability.didCheckAuthorizationStatus)
    }

    @Test func cancellingDuringTheRequestFinishesAtOnceAndIgnoresTheLateAnswer() async {
        let capability = TestableCapability()
        capability.requestResponse = .hold
        let procedure = AuthorizeCapabilityProcedure(capability)
        ProcedureQueue().add(procedure: procedure)
        await eventually("the request to be held") { capability.heldResponseCount == 1 }
        procedure.cancel()
        await finished([procedure])
        PKExpectProcedureCancelled(procedure)
        capability.releaseHeldResponses()
        #expect(!capability.didCheckAuthorizationStatus)
        #expect(procedure.output.isPending)
    }

    @Test func cancelledBeforeItRunsItNeverAsks() async {
        let capability = TestableCapability()
        let procedure = AuthorizeCapabilityProcedure(capability)
        procedure.cancel()
        await run(procedure)
        PKExpectProcedureCancelled(procedure)
        #expect(!capability.didCheckIsAvailable)
        #expect(!capability.didRequestAuthorization)
    }

    @Test func logsWhyTheStatusIsNotEnoughAfterTheRequest() throws {
        let capability = Capability.ProcessPrivileges(
            .netBindService, source: .fixture(processStatus: "CapEff:\t0000000000000000\nCapPrm:\t0000000000000000"))
        let procedure = AuthorizeCapabilityProcedure(capability)
        let messages = procedure.responseLogMessages((true, .known(try capability.currentSets())))
        #expect(messages.map(\.0) == [.verbose, .info])
        #expect(messages.last?.1.contains("setcap cap_net_bind_service+ep") == true, "\(messages)")
    }

    @Test func logsThatAnUnavailableCapabilityWasNotAsked() {
        let procedure = AuthorizeCapabilityProcedure(Capability.FileAccess(.read, at: ""))
        let messages = procedure.responseLogMessages((false, .missing))
        #expect(messages.last?.0 == .info)
        #expect(messages.last?.1.contains("is unavailable, so authorization was not requested") == true)
    }

    @Test func aReadingProcedureLogsOnlyTheStatus() {
        let procedure = GetAuthorizationStatusProcedure(TestableCapability(serviceAuthorizationStatus: .denied))
        let messages = procedure.responseLogMessages((true, .denied))
        #expect(messages.map(\.0) == [.verbose])
        #expect(messages.first?.1 == "TestableCapability: available true, status denied")
    }
}
