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
