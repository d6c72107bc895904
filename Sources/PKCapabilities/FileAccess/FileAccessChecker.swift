#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Decides what ``Capability/FileAccess`` sees at a path: whether it exists, what it is, and which modes are
/// granted; and creates missing directories.
///
/// Two ship with the module: ``EffectiveAccessChecker`` asks the kernel for this process, and
/// ``PermissionBitsChecker`` answers for an unprivileged user from the permission bits. Write your own to fake a
/// file system in tests. Called synchronously on the framework's threads; it must be thread-safe.
public protocol FileAccessChecker: Sendable {
    /// What is at `path` and what it grants.
    func status(ofItemAt path: String) -> Capability.FileAccess.Status

    /// Creates a directory at `path`, with any missing parents, each with `permissions` (before the umask). The
    /// default does it with `mkdir(2)`.
    func createDirectory(atPath path: String, permissions: UInt32) throws(FileAccessError)
}

extension FileAccessChecker {
    /// Creates the directory and any missing parents with `mkdir(2)`; an existing directory is fine.
    public func createDirectory(atPath path: String, permissions: UInt32) throws(FileAccessError) {
        try FileSystemCalls.makeDirectories(path, permissions: permissions)
    }
}

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

/// Answers for an unprivileged user from the permission bits alone, as the kernel would for a process with that
/// user and those groups and no capabilities: the owner's bits when the user owns the file, else the group's
/// bits when one of the groups owns it, else the others' bits. Every directory on the way must grant search
/// (execute), or the path is ``Capability/FileAccess/Status/inaccessible(_:)`` with `EACCES`.
///
/// It reads the real file system (`stat(2)` as this process), so it works when the tests run as root. Not
/// modelled: access control lists, read-only mounts, security modules, and the directories a symbolic link
/// leads through (links are followed). Creating a directory checks write and search permission on the deepest
/// existing parent in this view, then creates it as this process.
public struct PermissionBitsChecker: FileAccessChecker {
    /// The user id whose view this is.
    public let userID: UInt32
    /// The primary and supplementary group ids.
    public let groupIDs: Set<UInt32>

    /// Creates the view of user `userID` in groups `groupIDs`; by default `nobody` (65534) in `nogroup`.
    public init(userID: UInt32 = 65_534, groupIDs: Set<UInt32> = [65_534]) {
        self.userID = userID
        self.groupIDs = groupIDs
    }

    /// Examines `path` in this view.
    public func status(ofItemAt path: String) -> Capability.FileAccess.Status {
        let absolute = FileSystemCalls.absolute(path)
        for directory in FileSystemCalls.ancestors(of: absolute) {
            switch FileSystemCalls.examine(directory) {
            case .failure(let error) where error.code == ENOENT:
                return .missing
            case .failure(let error):
                return .inaccessible(.cannotExamine(path: path, code: error.code, reason: error.reason))
            case .success(let info):
                guard granted(by: info).contains(.execute) else {
                    let reason = "\(directory) may not be searched: \(systemErrorMessage(EACCES))"
                    return .inaccessible(.cannotExamine(path: path, code: EACCES, reason: reason))
                }
            }
        }
        switch FileSystemCalls.examine(absolute) {
        case .failure(let error) where error.code == ENOENT:
            return .missing
        case .failure(let error):
            return .inaccessible(.cannotExamine(path: path, code: error.code, reason: error.reason))
        case .success(let info):
            return .accessible(FileSystemCalls.kind(of: info), granted: granted(by: info))
        }
    }

    /// Checks write and search permission on the deepest existing parent in this view, then creates the
    /// directory as this process.
    public func createDirectory(atPath path: String, permissions: UInt32) throws(FileAccessError) {
        let absolute = FileSystemCalls.absolute(path)
        var parent = "/"
        for directory in FileSystemCalls.ancestors(of: absolute) {
            guard case .success = FileSystemCalls.examine(directory) else { break }
            parent = directory
        }
        if case .success(let info) = FileSystemCalls.examine(parent),
            !granted(by: info).isSuperset(of: [.write, .execute])
        {
            let reason = "\(parent) does not grant write and search: \(systemErrorMessage(EACCES))"
            throw .couldNotCreate(path: path, code: EACCES, reason: reason)
        }
        try FileSystemCalls.makeDirectories(path, permissions: permissions)
    }

    private func granted(by info: stat) -> Capability.FileAccess.Mode {
        let bits = UInt32(info.st_mode)
        let shift: UInt32 = info.st_uid == userID ? 6 : groupIDs.contains(info.st_gid) ? 3 : 0
        var granted: Capability.FileAccess.Mode = []
        if bits & (0o4 << shift) != 0 { granted.insert(.read) }
        if bits & (0o2 << shift) != 0 { granted.insert(.write) }
        if bits & (0o1 << shift) != 0 { granted.insert(.execute) }
        return granted
    }
}

/// The system calls the checkers share.
enum FileSystemCalls {

    /// `stat(2)` of `path`, or its `errno`.
    static func examine(_ path: String) -> Result<stat, TextFile.Failure> {
        var info = stat()
        guard stat(path, &info) == 0 else { return .failure(TextFile.Failure("stat")) }
        return .success(info)
    }

    /// What `info` describes.
    static func kind(of info: stat) -> Capability.FileAccess.Kind {
        switch info.st_mode & S_IFMT {
        case S_IFREG: .file
        case S_IFDIR: .directory
        default: .other
        }
    }

    /// `path` made absolute against the working directory.
    static func absolute(_ path: String) -> String {
        if path.hasPrefix("/") { return path }
        guard let cwd = getcwd(nil, 0) else { return "/" + path }
        defer { free(cwd) }
        let base = String(cString: cwd)
        return (base.hasSuffix("/") ? base : base + "/") + path
    }

    /// The directories leading to `absolute`, from `/` down to its parent.
    static func ancestors(of absolute: String) -> [String] {
        let components = absolute.split(separator: "/").map(String.init)
        var result = ["/"]
        var current = ""
        for component in components.dropLast() {
            current += "/" + component
            result.append(current)
        }
        return result
    }

    /// Creates `path` and its missing parents with `mkdir(2)`; an existing directory is fine.
    static func makeDirectories(_ path: String, permissions: UInt32) throws(FileAccessError) {
        let absolute = absolute(path)
        for directory in ancestors(of: absolute).dropFirst() + [absolute] {
            if mkdir(directory, mode_t(permissions)) == 0 { continue }
            let code = errno
            if code == EEXIST, case .success(let info) = examine(directory), kind(of: info) == .directory { continue }
            throw .couldNotCreate(path: path, code: code, reason: "mkdir \(directory): \(systemErrorMessage(code))")
        }
    }
}
