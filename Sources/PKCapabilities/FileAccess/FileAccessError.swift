/// Why ``Capability/FileAccess`` could not examine, grant or create a path.
public enum FileAccessError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The path is empty or contains a NUL character, so no file can have it.
    case invalidPath(String)
    /// The path (or a directory on the way to it) could not be examined; `code` is the `errno` of `stat(2)`,
    /// such as `EACCES` when a directory on the way may not be searched.
    case cannotExamine(path: String, code: Int32, reason: String)
    /// Nothing exists at the path, and it was not created (`createIfMissing` is `.never`).
    case missing(path: String)
    /// The path exists but does not grant `missing` to this process.
    case denied(path: String, missing: Capability.FileAccess.Mode, granted: Capability.FileAccess.Mode)
    /// Creating the missing directory failed; `code` is the `errno` of `mkdir(2)`.
    case couldNotCreate(path: String, code: Int32, reason: String)

    /// A readable description.
    public var description: String {
        switch self {
        case .invalidPath(let path):
            return "\"\(path.replacingNUL())\" is not a usable path (it is empty or contains a NUL character)"
        case .cannotExamine(let path, _, let reason):
            return "\(path) could not be examined: \(reason)"
        case .missing(let path):
            return "\(path) does not exist (pass createIfMissing: .directory() to have it created)"
        case .denied(let path, let missing, let granted):
            let grants = granted.isEmpty ? "nothing" : "only \(granted)"
            return "\(path) does not grant \(missing) access to this process (it grants \(grants))"
        case .couldNotCreate(let path, _, let reason):
            return "\(path) could not be created: \(reason)"
        }
    }
}

extension String {
    /// The string with NUL characters shown as `\0`.
    fileprivate func replacingNUL() -> String {
        map { $0 == "\0" ? "\\0" : String($0) }.joined()
    }
}
