import Foundation
import PKConditions
import PKTesting
import Testing

/// `UserConfirmationCondition` with a fake provider, and the terminal provider without a terminal.
struct UserConfirmationConditionTests {

    private func run(answer: ConfirmationAnswer) -> (TestProcedure, FakeConfirmationProvider) {
        let provider = FakeConfirmationProvider(answer: answer)
        let procedure = TestProcedure()
        procedure.add(
            condition: UserConfirmationCondition(title: "Delete", message: "Delete everything?", provider: provider))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        return (procedure, provider)
    }

    @Test func confirmedExecutesAfterAskingOnce() {
        let (procedure, provider) = run(answer: .confirmed)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(provider.askCount == 1)
        #expect(provider.questions == [.init(title: "Delete", message: "Delete everything?")])
    }

    @Test func declinedCancelsWithDeclined() {
        let (procedure, provider) = run(answer: .declined)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.errors.first as? UserConfirmationError == .declined)
        #expect(provider.askCount == 1)
    }

    @Test func unavailableCancelsWithTheReason() {
        let (procedure, _) = run(answer: .unavailable(reason: "nobody on call"))
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.errors.first as? UserConfirmationError == .unavailable("nobody on call"))
    }

    @Test func fakeProviderAnswerCanChangeBetweenQuestions() {
        let provider = FakeConfirmationProvider(answer: .declined)
        let answers = PKMutex<[ConfirmationAnswer]>([])
        provider.confirm(title: "A", message: "a") { answer in answers.withLock { $0.append(answer) } }
        provider.answer = .confirmed
        provider.confirm(title: "B", message: "b") { answer in answers.withLock { $0.append(answer) } }
        #expect(answers.withLock { $0 } == [.declined, .confirmed])
        #expect(provider.askCount == 2)
    }
}

/// `TerminalConfirmationProvider` never blocks or prompts when its input is not a terminal.
struct TerminalConfirmationProviderTests {

    @Test func nonTerminalInputAnswersUnavailableAtOnceWithoutPrompting() throws {
        let input = Pipe()
        let output = Pipe()
        let provider = TerminalConfirmationProvider(
            input: input.fileHandleForReading, output: output.fileHandleForWriting)
        let answer = PKMutex<ConfirmationAnswer?>(nil)
        provider.confirm(title: "Deploy", message: "Deploy to production?") { value in answer.withLock { $0 = value } }
        #expect(answer.withLock { $0 } == .unavailable(reason: "standard input is not a terminal"))
        try output.fileHandleForWriting.close()
        let written = try output.fileHandleForReading.readToEnd() ?? Data()
        #expect(written.isEmpty)
    }

    @Test func conditionWithANonTerminalProviderCancelsTheProcedure() {
        let provider = TerminalConfirmationProvider(input: Pipe().fileHandleForReading)
        let procedure = TestProcedure()
        procedure.add(condition: UserConfirmationCondition(title: "Deploy", message: "Sure?", provider: provider))
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        #expect(
            procedure.errors.first as? UserConfirmationError
                == .unavailable("standard input is not a terminal"))
    }
}
