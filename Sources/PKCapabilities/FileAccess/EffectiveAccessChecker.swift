#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Asks the kernel what this process may do: `stat(2)` for existence and kind, then `faccessat(2)` with
/// `AT_EACCESS` (the effective user and groups, and the process's capabilities) for each mode.
///
/// A process running as root, or holding `CAP_DAC_OVERRIDE`, is granted read and write on almost everything,
/// even a file with mode 000; use ``PermissionBitsChecker`` to see what an unprivileged user would get.
public struct EffectiveAccessChecker: FileAccessChecker {
    /// Creates the checker.
    public init() {}

    /// Examines `path` for this process.
    public func status(ofItemAt path: String) -> Capability.FileAccess.Status {
        let kind: Capability.FileAccess.Kind
        switch FileSystemCalls.examine(path) {
        case .failure(let error) where error.code == ENOENT:
            return .missing
        case .failure(let error):
            return .inaccessible(.cannotExamine(path: path, code: error.code, reason: error.reason))
        case .success(let info):
            kind = FileSystemCalls.kind(of: info)
        }
        var granted: Capability.FileAccess.Mode = []
        for (mode, flag) in [(Capability.FileAccess.Mode.read, R_OK), (.write, W_OK), (.execute, X_OK)]
        where faccessat(AT_FDCWD, path, flag, AT_EACCESS) == 0 {
            granted.insert(mode)
        }
        return .accessible(kind, granted: granted)
    }
}
