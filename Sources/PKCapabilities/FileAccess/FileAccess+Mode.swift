extension Capability.FileAccess {

    /// Kinds of access, as `access(2)` names them.
    public struct Mode: OptionSet, Hashable, Sendable, CustomStringConvertible {
        /// The bits.
        public let rawValue: Int
        /// Creates modes from bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// Read a file, or list a directory.
        public static let read = Mode(rawValue: 1 << 0)
        /// Write a file, or create and remove entries in a directory.
        public static let write = Mode(rawValue: 1 << 1)
        /// Execute a file, or enter (search) a directory.
        public static let execute = Mode(rawValue: 1 << 2)

        /// `"read, write"`, or `"no"` for the empty set.
        public var description: String {
            let names = [(Mode.read, "read"), (.write, "write"), (.execute, "execute")]
                .filter { contains($0.0) }.map(\.1)
            return names.isEmpty ? "no" : names.joined(separator: ", ")
        }
    }
}
