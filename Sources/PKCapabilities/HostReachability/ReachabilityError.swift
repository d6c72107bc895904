/// Why ``Capability/HostReachability`` is unavailable or not satisfied.
public enum ReachabilityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host, port or timeout cannot be used; the text says which.
    case invalidTarget(String)
    /// The connection failed as `status` says.
    case notReachable(host: String, port: UInt16, status: Capability.HostReachability.Status)

    /// A readable description.
    public var description: String {
        switch self {
        case .invalidTarget(let reason):
            return "The reachability target is invalid: \(reason)"
        case .notReachable(let host, let port, let status):
            let what: String =
                switch status {
                case .reachable: "is reachable"
                case .refused: "refused the connection (nothing listens there?)"
                case .timedOut: "did not answer in time"
                case .unresolved(let message): "could not be resolved: \(message)"
                case .unreachable(let message): "could not be reached: \(message)"
                }
            return "\(host):\(port) \(what)"
        }
    }
}
