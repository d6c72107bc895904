/// A token kept in memory: for tests, and for a token your code obtains some other way. Thread-safe.
public final class InMemoryCredentialStore: CredentialStore {
    private let stored: PKMutex<Capability.Credential.Token?>

    /// Creates a store holding `token`.
    public init(token: Capability.Credential.Token? = nil) {
        stored = PKMutex(token)
    }

    /// The stored token; settable.
    public var token: Capability.Credential.Token? {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }

    /// The stored token.
    public func loadToken() throws -> Capability.Credential.Token? { token }

    /// Stores `token`.
    public func saveToken(_ token: Capability.Credential.Token) throws { self.token = token }

    /// `memory`.
    public var description: String { "memory" }
}
