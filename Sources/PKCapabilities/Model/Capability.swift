/// A namespace for capabilities and the types they share, as in ProcedureKit (`Capability.Location`,
/// `Capability.CloudKit`).
///
/// The capabilities this module ships are nested here: ``ProcessPrivileges``, ``FileAccess``, ``Credential``,
/// ``HostReachability`` and ``UserConsent``. Your own capabilities do not have to be.
public enum Capability {

    /// The status of a capability that has nothing to authorize: it is available or it is not. Every value meets
    /// every requirement, and all values are equal.
    public struct VoidStatus: AuthorizationStatus, Hashable, CustomStringConvertible {
        /// There is only one level.
        public typealias Requirement = Void

        /// Creates the status.
        public init() {}

        /// Always `true`.
        public func meets(requirement: Void?) -> Bool { true }

        /// `"VoidStatus"`.
        public var description: String { "VoidStatus" }
    }
}
