/// A ``ConfirmationProvider`` for tests: it gives a fixed answer at once and records each question.
///
/// ```swift
/// let provider = FakeConfirmationProvider(answer: .declined)
/// procedure.add(condition: UserConfirmationCondition(title: "Delete", message: "Sure?", provider: provider))
/// // … run it …
/// #expect(provider.askCount == 1)
/// ```
///
/// It answers synchronously, on the thread that asks. Thread-safe.
public final class FakeConfirmationProvider: ConfirmationProvider {

    /// One question the provider was asked.
    public struct Question: Sendable, Hashable {
        /// The title asked with.
        public let title: String
        /// The message asked with.
        public let message: String

        /// Creates a question, for comparing with ``FakeConfirmationProvider/questions``.
        public init(title: String, message: String) {
            self.title = title
            self.message = message
        }
    }

    private let state: PKMutex<(answer: ConfirmationAnswer, questions: [Question])>

    /// Creates a provider that always gives `answer`.
    public init(answer: ConfirmationAnswer) {
        state = PKMutex((answer, []))
    }

    /// The answer given to every question; it may be changed between questions.
    public var answer: ConfirmationAnswer {
        get { state.withLock { $0.answer } }
        set { state.withLock { $0.answer = newValue } }
    }

    /// Every question asked, in order.
    public var questions: [Question] { state.withLock { $0.questions } }

    /// How many times the provider was asked.
    public var askCount: Int { state.withLock { $0.questions.count } }

    /// Records the question and calls `completion` with ``answer`` at once, on the calling thread.
    public func confirm(
        title: String, message: String, completion: @escaping @Sendable (ConfirmationAnswer) -> Void
    ) {
        let answer = state.withLock { state -> ConfirmationAnswer in
            state.questions.append(Question(title: title, message: message))
            return state.answer
        }
        completion(answer)
    }
}
