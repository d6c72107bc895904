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
