extension Capability.FileAccess {

    /// What the checker found at the path.
    public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
        /// The path exists (symbolic links followed) and grants `granted`.
        case accessible(Kind, granted: Mode)
        /// Nothing exists at the path.
        case missing
        /// The path could not be examined; the error says why.
        case inaccessible(FileAccessError)

        /// `true` when the path is accessible and grants all of `requirement`.
        public func meets(requirement: Mode?) -> Bool {
            guard case .accessible(_, let granted) = self else { return false }
            return granted.isSuperset(of: requirement ?? [])
        }

        /// `accessible(directory, read, write)`, `missing` or `inaccessible(<reason>)`.
        public var description: String {
            switch self {
            case .accessible(let kind, let granted): "accessible(\(kind), \(granted))"
            case .missing: "missing"
            case .inaccessible(let error): "inaccessible(\(error))"
            }
        }
    }
}
