/// A condition that asks a person to confirm before the procedure runs.
///
/// On evaluation it asks its ``ConfirmationProvider`` with the title and message:
/// - ``ConfirmationAnswer/confirmed`` → satisfied;
/// - ``ConfirmationAnswer/declined`` → fails with ``UserConfirmationError/declined``;
/// - ``ConfirmationAnswer/unavailable(reason:)`` → fails with ``UserConfirmationError/unavailable(_:)``.
///
/// The procedure is cancelled with that error as it is.
///
/// ```swift
/// let wipe = WipeDatabaseProcedure()
/// wipe.add(condition: UserConfirmationCondition(title: "Wipe the database", message: "This cannot be undone."))
/// ```
///
/// The default ``TerminalConfirmationProvider`` asks on the terminal and answers `unavailable` at once when
/// standard input is not a terminal (a daemon, CI, a pipe), so it never blocks a service.
///
/// Threads: the completion runs on whichever thread the provider answers on. Cancellation: the question cannot be
/// withdrawn; if the procedure is cancelled first, the answer is ignored.
public final class UserConfirmationCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `title`, `message` and `provider` are immutable and Sendable; the superclass guards its
    // state with its PKMutex.

    /// The question's title.
    public let title: String
    /// The question's message.
    public let message: String
    /// Who is asked.
    public let provider: any ConfirmationProvider

    /// Creates the condition.
    ///
    /// - Parameters:
    ///   - title: A short title for the question.
    ///   - message: What will happen if the person confirms.
    ///   - provider: Who to ask; by default the terminal.
    public init(title: String, message: String, provider: any ConfirmationProvider = TerminalConfirmationProvider()) {
        self.title = title
        self.message = message
        self.provider = provider
        super.init()
    }

    /// Asks the provider and completes with its answer, on the thread the provider answers on.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        provider.confirm(title: title, message: message) { answer in
            switch answer {
            case .confirmed: completion(.success(true))
            case .declined: completion(.failure(UserConfirmationError.declined))
            case .unavailable(let reason): completion(.failure(UserConfirmationError.unavailable(reason)))
            }
        }
    }
}
