extension Capability.UserConsent {

    /// The person's answer, or that nobody was asked yet.
    public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
        /// Nobody asked yet.
        case notAsked
        /// The person agreed.
        case granted
        /// The person refused.
        case declined
        /// Nobody could be asked; the reason says why (such as `"standard input is not a terminal"`).
        case unavailable(reason: String)

        /// `true` only for ``granted``.
        public func meets(requirement: Void?) -> Bool { self == .granted }

        /// `notAsked`, `granted`, `declined` or `unavailable(<reason>)`.
        public var description: String {
            switch self {
            case .notAsked: "notAsked"
            case .granted: "granted"
            case .declined: "declined"
            case .unavailable(let reason): "unavailable(\(reason))"
            }
        }
    }
}
