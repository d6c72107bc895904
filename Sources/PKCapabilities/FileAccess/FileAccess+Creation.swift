extension Capability.FileAccess {

    /// What requesting authorization does about a missing path.
    public enum Creation: Hashable, Sendable {
        /// Nothing: a missing path stays missing.
        case never
        /// Create it as a directory, with any missing parents, each with `permissions` (before the umask).
        case directory(permissions: UInt32 = 0o755)
    }
}
