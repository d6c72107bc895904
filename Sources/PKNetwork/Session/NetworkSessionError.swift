/// Errors from a ``ManagedNetworkSession``.
public enum NetworkSessionError: Error, Sendable, Equatable {
    /// The session was invalidated before the task was made.
    case invalidated
}
