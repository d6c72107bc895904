import Foundation

/// Where a ``Capability/Credential`` keeps its token: the environment, a file, or a keychain-like store of your
/// own.
///
/// Three ship with the module: ``EnvironmentCredentialStore``, ``FileCredentialStore`` and
/// ``InMemoryCredentialStore``. Conform your own type to use a secrets manager or the system keychain.
///
/// Called synchronously on the framework's threads (loads on every status read); it must be thread-safe. Errors
/// you throw are shown by their descriptions, so they must not contain the token.
public protocol CredentialStore: Sendable, CustomStringConvertible {
    /// The stored token, or `nil` when there is none.
    func loadToken() throws -> Capability.Credential.Token?

    /// Replaces the stored token with `token` (a new one from the authorize step).
    func saveToken(_ token: Capability.Credential.Token) throws
}
