import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
