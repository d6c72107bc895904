/// What a ``ConfirmationProvider`` answered when asked to confirm.
public enum ConfirmationAnswer: Sendable, Hashable {
    /// The person agreed: the condition is satisfied.
    case confirmed
    /// The person refused: the condition fails with ``UserConfirmationError/declined``.
    case declined
    /// Nobody could be asked (for example there is no terminal); the reason says why. The condition fails with
    /// ``UserConfirmationError/unavailable(_:)``.
    case unavailable(reason: String)
}
