#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

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
