/// Something that asks a person to confirm an action: the server-side counterpart of an alert.
///
/// ``UserConfirmationCondition`` calls ``confirm(title:message:completion:)`` once per evaluation. Ship your own
/// to ask through a web console, a chat bot or a ticket; use ``TerminalConfirmationProvider`` for command-line
/// tools and ``FakeConfirmationProvider`` in tests.
public protocol ConfirmationProvider: Sendable {
    /// Asks for confirmation and calls `completion` exactly once with the answer, from any thread, possibly later.
    ///
    /// There is no cancellation: if the procedure is cancelled while the question is open, the answer that
    /// eventually arrives is ignored. Never block the calling thread waiting for a person.
    func confirm(title: String, message: String, completion: @escaping @Sendable (ConfirmationAnswer) -> Void)
}
