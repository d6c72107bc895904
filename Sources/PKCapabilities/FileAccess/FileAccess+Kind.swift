extension Capability.FileAccess {

    /// What is at a path.
    public enum Kind: Hashable, Sendable {
        /// A regular file.
        case file
        /// A directory.
        case directory
        /// Something else: a device, a socket, a pipe.
        case other
    }
}
