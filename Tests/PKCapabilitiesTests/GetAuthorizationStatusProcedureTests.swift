import Foundation
import PKCapabilities
import PKTesting
import Testing

/// `GetAuthorizationStatusProcedure`: reads availability and status, always succeeds, never requests.
struct GetAuthorizationStatusProcedureTests {

    @Test(arguments: [false, true])
    func setsTheResultToAvailabilityAndStatus(asynchronous: Bool) async {
        let capability = TestableCapability(isAsynchronous: asynchronous)
        let procedure = GetAuthorizationStatusProcedure(capability)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (true, .unknown))
        PKExpectTestCapabilityStatusChecked(capability)
    }

    @Test(arguments: [false, true])
    func runsTheCompletionBlockWithTheResult(asynchronous: Bool) async {
        let capability = TestableCapability(isAsynchronous: asynchronous, serviceAuthorizationStatus: .restricted)
        let received = Box<(isAvailable: Bool, status: TestableCapability.Status)?>(nil)
        let procedure = GetAuthorizationStatusProcedure(capability) { response in received.value = response }
        await run(procedure)
        PKExpectGetAuthorizationStatus(received.value, expected: (true, .restricted))
        PKExpectTestCapabilityStatusChecked(capability)
    }

    @Test(arguments: [false, true])
    func succeedsWhenTheCapabilityIsUnavailable(asynchronous: Bool) async {
        let capability = TestableCapability(isAsynchronous: asynchronous, serviceIsAvailable: false)
        let procedure = GetAuthorizationStatusProcedure(capability)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (false, .unknown))
        PKExpectTestCapabilityStatusChecked(capability)
    }

    @Test(arguments: TestableCapability.Status.allCases)
    func succeedsWhateverTheStatus(status: TestableCapability.Status) async {
        let capability = TestableCapability(requirement: .maximum, serviceAuthorizationStatus: status)
        let procedure = GetAuthorizationStatusProcedure(capability)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (true, status))
    }

    @Test func neverRequestsAuthorization() async {
        let capability = TestableCapability(serviceAuthorizationStatus: .denied)
        let procedure = GetAuthorizationStatusProcedure(capability)
        await run(procedure)
        #expect(!capability.didRequestAuthorization)
        #expect(capability.serviceAuthorizationStatus == .denied)
    }

    @Test func isNamedAfterTheCapabilityType() {
        #expect(
            GetAuthorizationStatusProcedure(TestableCapability()).name == "GetAuthorizationStatus(TestableCapability)")
    }

    @Test func aStatusThatNeverComesTimesOutOnTheClock() async {
        let clock = ManualClock()
        let capability = TestableCapability()
        capability.statusResponse = .never
        let completed = Box(false)
        let procedure = GetAuthorizationStatusProcedure(capability, timeout: .seconds(30), clock: clock) { _ in
            completed.value = true
        }
        ProcedureQueue().add(procedure: procedure)
        #expect(await clock.waitForScheduledActions(count: 1))
        clock.advance(by: .seconds(29))
        #expect(!procedure.isFinished)
        clock.advance(by: .seconds(1))
        await finished([procedure])
        PKExpectProcedureFinishedWithError(procedure, ProcedureKitError.timedOut(with: .by(30)))
        #expect(procedure.output.error as? ProcedureKitError == ProcedureKitError.timedOut(with: .by(30)))
        #expect(!completed.value)
    }

    @Test func cancellingWhileTheStatusIsAwaitedFinishesAtOnceAndIgnoresTheLateAnswer() async {
        let clock = ManualClock()
        let capability = TestableCapability()
        capability.statusResponse = .hold
        let completed = Box(false)
        let procedure = GetAuthorizationStatusProcedure(capability, timeout: .seconds(30), clock: clock) { _ in
            completed.value = true
        }
        ProcedureQueue().add(procedure: procedure)
        await eventually("the status read to be held") { capability.heldResponseCount == 1 }
        procedure.cancel()
        await finished([procedure])
        PKExpectProcedureCancelled(procedure)
        #expect(procedure.output.isPending)
        #expect(clock.scheduledActionCount == 0)  // the timeout was cancelled with the check
        capability.releaseHeldResponses()
        #expect(!completed.value)
        #expect(procedure.output.isPending)
    }

    @Test func aCapabilityAnsweringTwiceFinishesTheProcedureOnceWithTheFirstAnswer() async {
        let events = EventRecorder()
        let procedure = GetAuthorizationStatusProcedure(DoubleAnsweringCapability())
        procedure.addObserver(events)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        PKExpectGetAuthorizationStatus(procedure.output.success, expected: (true, .minimumAuthorized))
        #expect(events.count(of: .didFinish) == 1)
    }

    @Test func withoutATimeoutNothingIsScheduled() async {
        let clock = ManualClock()
        let procedure = GetAuthorizationStatusProcedure(TestableCapability(), clock: clock)
        await run(procedure)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func aTimeoutThatDoesNotFireIsCancelledWhenTheStatusArrives() async {
        let clock = ManualClock()
        let procedure = GetAuthorizationStatusProcedure(TestableCapability(), timeout: .seconds(5), clock: clock)
        await run(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(clock.totalScheduledActionCount == 1)
        #expect(clock.scheduledActionCount == 0)
    }
}
