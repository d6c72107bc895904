extension Capability.ProcessPrivileges {

    /// What the capability found.
    public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
        /// The sets were read.
        case known(Sets)
        /// They could not be read or parsed; never meets a requirement.
        case unknown(ProcessPrivilegesError)

        /// `true` when the sets were read and the effective set holds all of `requirement`.
        public func meets(requirement: LinuxCapabilitySet?) -> Bool {
            guard case .known(let sets) = self else { return false }
            return sets.effective.isSuperset(of: requirement ?? [])
        }

        /// `known(effective 0x…)` or `unknown(<reason>)`.
        public var description: String {
            switch self {
            case .known(let sets): "known(\(sets))"
            case .unknown(let error): "unknown(\(error))"
            }
        }
    }
}
