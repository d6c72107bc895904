extension Capability.HostReachability {

    /// What a connection attempt found.
    public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
        /// A connection to this address (such as `127.0.0.1:8080`) was established.
        case reachable(address: String)
        /// Every address refused the connection (nothing listens on the port).
        case refused
        /// No address answered within the timeout.
        case timedOut
        /// The host name could not be resolved; the text is the resolver's message.
        case unresolved(String)
        /// The connection failed otherwise (no route, network down); the text is the system's message.
        case unreachable(String)

        /// `true` only for ``reachable(address:)``.
        public func meets(requirement: Void?) -> Bool {
            if case .reachable = self { return true }
            return false
        }

        /// `reachable(127.0.0.1:8080)`, `refused`, `timedOut`, `unresolved(<message>)` or
        /// `unreachable(<message>)`.
        public var description: String {
            switch self {
            case .reachable(let address): "reachable(\(address))"
            case .refused: "refused"
            case .timedOut: "timedOut"
            case .unresolved(let message): "unresolved(\(message))"
            case .unreachable(let message): "unreachable(\(message))"
            }
        }
    }
}
