import Foundation
import PKCapabilities
import PKTesting
import Testing

/// `Capability.UserConsent` through PKConditions' confirmation providers.
struct UserConsentTests {

    typealias Consent = Capability.UserConsent

    @Test func nobodyIsAskedUntilAuthorizationIsRequested() async throws {
        let provider = FakeConfirmationProvider(answer: .confirmed)
        let consent = Consent(title: "Wipe", message: "Wipe the cache?", provider: provider)
        #expect(try await consent.authorizationStatus() == .notAsked)
        let check = GetAuthorizationStatusProcedure(consent)
        await run(check)
        PKExpectGetAuthorizationStatus(check.output.success, expected: (true, .notAsked))
        #expect(provider.askCount == 0)
    }

    @Test(arguments: [
        (ConfirmationAnswer.confirmed, Consent.Status.granted),
        (.declined, .declined),
        (.unavailable(reason: "nobody on call"), .unavailable(reason: "nobody on call")),
    ])
    func requestingAsksOnceAndRemembersTheAnswer(answer: ConfirmationAnswer, status: Consent.Status) async throws {
        let provider = FakeConfirmationProvider(answer: answer)
        let consent = Consent(title: "Wipe", message: "Wipe the cache?", provider: provider)
        #expect(try await consent.requestAuthorization() == status)
        #expect(consent.status == status)
        #expect(provider.questions == [.init(title: "Wipe", message: "Wipe the cache?")])
    }

    @Test func grantedConsentIsNotAskedForAgainButARefusalIs() async throws {
        let provider = FakeConfirmationProvider(answer: .declined)
        let consent = Consent(title: "Deploy", message: "Deploy now?", provider: provider)
        try await consent.requestAuthorization()
        provider.answer = .confirmed
        try await consent.requestAuthorization()
        try await consent.requestAuthorization()
        #expect(provider.askCount == 2)
        #expect(consent.status == .granted)
    }

    @Test func aDeclinedConsentCancelsTheGatedProcedureWithDeclined() async {
        let consent = Consent(title: "Deploy", message: "Sure?", provider: FakeConfirmationProvider(answer: .declined))
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(consent))
        await run(procedure)
        PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.capabilityUnauthorized())
        #expect(procedure.kitError?.underlyingError as? UserConfirmationError == .declined)
    }

    @Test func withoutATerminalTheConsentIsRefusedClearlyAndNobodyIsPrompted() async throws {
        let output = Pipe()
        let provider = TerminalConfirmationProvider(
            input: Pipe().fileHandleForReading, output: output.fileHandleForWriting)
        let consent = Consent(title: "Deploy", message: "Deploy to production?", provider: provider)
        let procedure = TestProcedure()
        procedure.add(condition: AuthorizedFor(consent))
        await run(procedure)
        #expect(!procedure.didExecute)
        #expect(consent.status == .unavailable(reason: "standard input is not a terminal"))
        #expect(
            procedure.kitError?.underlyingError as? UserConfirmationError
                == .unavailable("standard input is not a terminal"))
        try output.fileHandleForWriting.close()
        #expect((try output.fileHandleForReading.readToEnd() ?? Data()).isEmpty)
    }

    @Test func silentConditionOnlyAcceptsAConsentGivenEarlier() async throws {
        let provider = FakeConfirmationProvider(answer: .confirmed)
        let consent = Consent(title: "Deploy", message: "Sure?", provider: provider)
        let before = TestProcedure(name: "before")
        before.add(condition: SilentCondition(AuthorizedFor(consent)))
        await run(before)
        PKExpectProcedureCancelledWithError(before, ProcedureKitError.capabilityUnauthorized())
        #expect(provider.askCount == 0)
        try await consent.requestAuthorization()
        let after = TestProcedure(name: "after")
        after.add(condition: SilentCondition(AuthorizedFor(consent)))
        await run(after)
        PKExpectProcedureFinished(after)
        #expect(provider.askCount == 1)
    }

    @Test func requestsRacingForOneConsentShareOneQuestion() {
        let provider = HeldConfirmationProvider()
        let consent = Consent(title: "Deploy", message: "Sure?", provider: provider)
        let completed = Box(0)
        DispatchQueue.concurrentPerform(iterations: 6) { _ in
            consent.requestAuthorization { completed.update { $0 += 1 } }
        }
        #expect(provider.askCount == 1)
        #expect(completed.value == 0)
        provider.answerAll(.confirmed)
        #expect(completed.value == 6)
        #expect(consent.status == .granted)
    }

    @Test func twoGatedProceduresAreAskedAboutOnce() async {
        let provider = HeldConfirmationProvider()
        let consent = Consent(title: "Deploy", message: "Sure?", provider: provider)
        let first = TestProcedure(name: "first")
        first.add(condition: AuthorizedFor(consent))
        let second = TestProcedure(name: "second")
        second.add(condition: AuthorizedFor(consent))
        ProcedureQueue().add(procedures: first, second)
        await eventually("a question to be asked") { provider.openQuestions == 1 }
        provider.answerAll(.confirmed)
        await finished([first, second])
        // The second authorization found consent granted and did not ask.
        #expect(provider.askCount == 1)
        PKExpectProcedureFinished(first)
        PKExpectProcedureFinished(second)
    }
}
