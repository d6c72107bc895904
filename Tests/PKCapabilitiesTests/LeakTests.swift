import Foundation
import PKCapabilities
import PKTesting
import Testing

/// No capability, condition or procedure outlives its work, even when a capability never answers.
struct LeakTests {

    @Test func proceduresConditionsAndCapabilitiesAreReleasedAfterTheyRun() async {
        let leaks = LeakCheck()
        do {
            let capability = TestableCapability(isAsynchronous: true)
            let getter = GetAuthorizationStatusProcedure(capability)
            let authorize = AuthorizeCapabilityProcedure(capability)
            let condition = AuthorizedFor(capability)
            let produced = condition.producedDependencies
            let procedure = TestProcedure()
            procedure.add(condition: condition)
            leaks.track([capability, getter, authorize, condition, procedure])
            leaks.track(produced as [any AnyObject & Sendable])
            await run(getter, authorize, procedure)
            PKExpectProcedureFinished(procedure)
        }
        await PKExpectReleased(leaks)
    }

    @Test func aCapabilityThatNeverAnswersKeepsNothingAliveAfterATimeout() async {
        let leaks = LeakCheck()
        let capability = TestableCapability()
        capability.statusResponse = .never
        capability.requestResponse = .hold  // keeps the completion handler, as a faulty capability might
        do {
            let clock = ManualClock()
            let authorize = AuthorizeCapabilityProcedure(capability, timeout: .seconds(1), clock: clock)
            let condition = SilentCondition(AuthorizedFor(capability, timeout: .seconds(1), clock: clock))
            let procedure = TestProcedure()
            procedure.add(condition: condition)
            leaks.track([authorize, condition, procedure, clock])
            ProcedureQueue().add(procedures: authorize, procedure)
            await advance(clock, by: .seconds(1), until: [authorize, procedure])
            PKExpectProcedureFinishedWithError(authorize, ProcedureKitError.timedOut(with: .by(1)))
            PKExpectProcedureCancelled(procedure, withErrors: true)
        }
        await PKExpectReleased(leaks)
        #expect(capability.heldResponseCount == 1)  // it still holds the handler, which holds nothing
    }

    @Test func aCancelledProcedureWaitingForACapabilityIsReleased() async {
        let leaks = LeakCheck()
        let capability = TestableCapability()
        capability.requestResponse = .hold
        do {
            let authorize = AuthorizeCapabilityProcedure(capability)
            leaks.track(authorize)
            ProcedureQueue().add(procedure: authorize)
            await eventually("the request to be held") { capability.heldResponseCount == 1 }
            authorize.cancel()
            await finished([authorize])
        }
        await PKExpectReleased(leaks)
    }

    @Test func aCredentialWhoseStepHoardsItsCompletionIsReleased() async {
        let leaks = LeakCheck()
        let hoard = Box<[@Sendable (Result<Capability.Credential.Token, any Error>) -> Void]>([])
        do {
            let clock = ManualClock()
            let credential = Capability.Credential(
                name: "api", store: InMemoryCredentialStore(), authorizeTimeout: .seconds(1), clock: clock,
                authorizeWithCompletion: { _, done in hoard.update { $0.append(done) } })
            let procedure = TestProcedure()
            procedure.add(condition: AuthorizedFor(credential))
            leaks.track([credential, procedure])
            ProcedureQueue().add(procedure: procedure)
            await advance(clock, by: .seconds(1), until: [procedure])
            PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        }
        await PKExpectReleased(leaks)
        #expect(hoard.value.count == 1)
    }

    @Test func theLinuxCapabilitiesAreReleasedAfterTheyRun() async throws {
        let leaks = LeakCheck()
        let directory = try TemporaryDirectory()
        defer { directory.remove() }
        let server = try LocalSocket(listening: 8)
        defer { server.close() }
        do {
            // ProcessPrivileges and HostReachability are values: the procedure holding their conditions is
            // tracked (the reachability probe runs on a thread of its own, which must not keep it alive).
            let files = Capability.FileAccess(.write, at: directory.path)
            let consent = Capability.UserConsent(
                title: "t", message: "m", provider: FakeConfirmationProvider(answer: .confirmed))
            let credential = Capability.Credential(name: "api", store: InMemoryCredentialStore()) { _ in
                Capability.Credential.Token("t")
            }
            let procedure = TestProcedure()
            procedure.add(condition: AuthorizedFor(files))
            procedure.add(condition: AuthorizedFor(consent))
            procedure.add(condition: AuthorizedFor(credential))
            procedure.add(condition: AuthorizedFor(Capability.ProcessPrivileges([])))
            procedure.add(condition: AuthorizedFor(Capability.HostReachability(host: "127.0.0.1", port: server.port)))
            leaks.track([files, consent, credential, procedure])
            await run(procedure)
            PKExpectProcedureFinished(procedure)
        }
        await PKExpectReleased(leaks)
    }
}
