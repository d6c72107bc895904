import Foundation

/// A token in an environment variable, such as `GITHUB_TOKEN`; an empty variable counts as no token.
///
/// The environment cannot be written for other processes, so ``saveToken(_:)`` keeps the token in this store's
/// memory, where ``loadToken()`` finds it first. Thread-safe.
public final class EnvironmentCredentialStore: CredentialStore {
    /// The variable's name.
    public let variable: String
    /// The scopes the token is known to allow.
    public let scopes: Set<String>
    /// When the token is known to expire, if it does.
    public let expiresAt: Date?

    private let environment: [String: String]
    private let saved = PKMutex<Capability.Credential.Token?>(nil)

    /// Creates a store reading `variable` from `environment` (the process's, by default).
    ///
    /// - Parameters:
    ///   - variable: The variable's name.
    ///   - scopes: The scopes the token allows (the environment cannot say).
    ///   - expiresAt: When the token expires, if known.
    ///   - environment: Where to look; the process's environment by default.
    public init(
        variable: String, scopes: Set<String> = [], expiresAt: Date? = nil,
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) {
        self.variable = variable
        self.scopes = scopes
        self.expiresAt = expiresAt
        self.environment = environment
    }

    /// The saved token, else the variable's value.
    public func loadToken() throws -> Capability.Credential.Token? {
        if let token = saved.withLock({ $0 }) { return token }
        guard let value = environment[variable], !value.isEmpty else { return nil }
        return Capability.Credential.Token(value, expiresAt: expiresAt, scopes: scopes)
    }

    /// Keeps `token` in memory.
    public func saveToken(_ token: Capability.Credential.Token) throws {
        saved.withLock { $0 = token }
    }

    /// `environment variable NAME`.
    public var description: String { "environment variable \(variable)" }
}
