import PKCapabilities
import PKTesting
import Testing

// The code of PKTesting's article "Testing" (PKTesting.docc/Testing.md), as written there, so that it compiles and
// runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test). It is here,
// in PKCapabilitiesTests, because one example needs PKCapabilities as well as PKTesting.

@Test func fetchFailsWithTheServersError() {
    let error = TestError()
    let procedure = TestProcedure(error: error)
    ProcedureQueue().add(procedure: procedure)
    #expect(ProcedureWaiter.wait(for: [procedure], timeout: 10))
    PKExpectProcedureFinished(procedure, withErrors: true)
    PKExpectProcedureError(procedure, equals: error)
}

@Suite(.timeLimit(.minutes(1)))
struct TestingGuideTests {

    @Test func capabilities() async throws {
        let queue = ProcedureQueue()
        let capability = TestableCapability(serviceAuthorizationStatus: .denied)
        let check = GetAuthorizationStatusProcedure(capability)
        try await queue.run(check)
        PKExpectGetAuthorizationStatus(check.output.success, expected: (true, .denied))
        PKExpectTestCapabilityStatusChecked(capability)
    }

    @Test func eventsAndOverlap() async throws {
        let queue = ProcedureQueue()
        let procedure = TestProcedure()
        let recorder = EventRecorder()
        procedure.addObserver(recorder)
        try await queue.run(procedure)
        PKExpectProcedureNoConcurrentEvents(recorder)
        #expect(recorder.kinds(for: procedure) == [.didAttach, .willExecute, .didExecute, .willFinish, .didFinish])
    }

    @Test func timeWithoutSleeping() {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 300, clock: clock)
        ProcedureQueue().add(procedure: delay)
        #expect(clock.waitForScheduledActions(count: 1, timeout: 10))
        clock.advance(by: .seconds(300))
        #expect(ProcedureWaiter.wait(for: [delay], timeout: 10))
    }
}
