import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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

/// A token in a file, readable by its owner only, as command-line tools keep them.
///
/// The file holds either the token alone on its first line, or a JSON object:
/// `{"token": "…", "expires_at": 1767225600, "scopes": ["repo", "read:org"]}` (`expires_at` in seconds since
/// 1970, or an ISO 8601 date; `scopes` an array or one space-separated string; both optional).
/// A missing or empty file holds no token. A malformed one is an error that never quotes the file.
/// ``saveToken(_:)`` writes the JSON form, with mode 0600, replacing the file atomically.
public struct FileCredentialStore: CredentialStore {
    /// The file's path.
    public let path: String

    /// Creates a store for the file at `path`.
    public init(path: String) {
        self.path = path
    }

    /// Reads and parses the file.
    public func loadToken() throws -> Capability.Credential.Token? {
        let text: String
        do {
            text = try TextFile.contents(of: path)
        } catch {
            if error.code == ENOENT { return nil }
            throw CredentialStoreError.unreadable(path: path, reason: error.reason)
        }
        let trimmed = text.trimmingWhitespace()
        if trimmed.isEmpty { return nil }
        if trimmed.hasPrefix("{") { return try parseJSON(trimmed) }
        let firstLine = trimmed.split(separator: "\n", maxSplits: 1).first.map { $0.trimmingWhitespace() } ?? ""
        return Capability.Credential.Token(firstLine)
    }

    /// Writes `token` as JSON, mode 0600.
    public func saveToken(_ token: Capability.Credential.Token) throws {
        var object: [String: Any] = ["token": token.revealedValue]
        if let expiresAt = token.expiresAt { object["expires_at"] = expiresAt.timeIntervalSince1970 }
        if !token.scopes.isEmpty { object["scopes"] = token.scopes.sorted() }
        let data = try JSONSerialization.data(withJSONObject: object, options: [.sortedKeys])
        do {
            try TextFile.replace(path, with: String(decoding: data, as: UTF8.self) + "\n")
        } catch {
            throw CredentialStoreError.unwritable(path: path, reason: error.reason)
        }
    }

    /// `file <path>`.
    public var description: String { "file \(path)" }

    private func parseJSON(_ text: String) throws -> Capability.Credential.Token {
        let object: Any
        do {
            object = try JSONSerialization.jsonObject(with: Data(text.utf8))
        } catch {
            throw CredentialStoreError.malformed(path: path, reason: "it starts with { but is not valid JSON")
        }
        guard let fields = object as? [String: Any] else {
            throw CredentialStoreError.malformed(path: path, reason: "the JSON is not an object")
        }
        guard let value = fields["token"] as? String, !value.isEmpty else {
            throw CredentialStoreError.malformed(path: path, reason: "there is no non-empty \"token\" string")
        }
        return Capability.Credential.Token(
            value, expiresAt: try expiry(fields["expires_at"]), scopes: try scopes(fields["scopes"]))
    }

    private func expiry(_ field: Any?) throws -> Date? {
        switch field {
        case nil, is NSNull:
            return nil
        case let seconds as NSNumber where !(seconds is Bool) && seconds.doubleValue.isFinite:
            return Date(timeIntervalSince1970: seconds.doubleValue)
        case let text as String:
            if let date = ISO8601DateFormatter().date(from: text) { return date }
            throw CredentialStoreError.malformed(path: path, reason: "\"expires_at\" is not an ISO 8601 date")
        default:
            throw CredentialStoreError.malformed(
                path: path, reason: "\"expires_at\" is neither a number of seconds nor a date")
        }
    }

    private func scopes(_ field: Any?) throws -> Set<String> {
        switch field {
        case nil, is NSNull:
            return []
        case let list as [String]:
            return Set(list)
        case let text as String:
            return Set(text.split(separator: " ").map(String.init))
        default:
            throw CredentialStoreError.malformed(path: path, reason: "\"scopes\" is neither a list nor a string")
        }
    }
}

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

/// Why a shipped ``CredentialStore`` could not read or write its token. Never quotes the token or the file.
public enum CredentialStoreError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The file exists but could not be read.
    case unreadable(path: String, reason: String)
    /// The file was read but is not in a known format; `reason` says what is wrong, without quoting it.
    case malformed(path: String, reason: String)
    /// The file could not be written.
    case unwritable(path: String, reason: String)

    /// A readable description.
    public var description: String {
        switch self {
        case .unreadable(let path, let reason): "\(path) could not be read: \(reason)"
        case .malformed(let path, let reason): "\(path) is malformed: \(reason)"
        case .unwritable(let path, let reason): "\(path) could not be written: \(reason)"
        }
    }
}
