/// What a ``NetworkReachability`` reports: ProcedureKit's `SCNetworkReachabilityFlags`, with the same member
/// names, on every platform.
///
/// SystemConfiguration does not exist on Linux, so a ProcedureKit test double that sets
/// `flags = .connectionRequired` or `[.reachable, .isWWAN]` ports unchanged, while code that reads an
/// `SCNetworkReachability` stays Apple-only. A ``Reachability/Manager`` reads the flags as SystemConfiguration's
/// documentation does: reachable when ``reachable`` is set and either no connection is required or one is made
/// automatically (``connectionOnTraffic`` or ``connectionOnDemand``) without ``interventionRequired``; over a
/// cellular connection when ``isWWAN`` is set.
public struct NetworkReachabilityFlags: OptionSet, Sendable, Hashable {
    /// The flags' bits, as SystemConfiguration numbers them.
    public let rawValue: UInt32

    /// Creates flags from SystemConfiguration's bits.
    public init(rawValue: UInt32) {
        self.rawValue = rawValue
    }

    /// The host is reachable through a transient connection (such as PPP).
    public static let transientConnection = NetworkReachabilityFlags(rawValue: 1 << 0)
    /// The host is reachable with the current configuration.
    public static let reachable = NetworkReachabilityFlags(rawValue: 1 << 1)
    /// The host is reachable, but a connection must first be established.
    public static let connectionRequired = NetworkReachabilityFlags(rawValue: 1 << 2)
    /// A connection will be established automatically by traffic to the host.
    public static let connectionOnTraffic = NetworkReachabilityFlags(rawValue: 1 << 3)
    /// Establishing the connection needs the user (a password, say).
    public static let interventionRequired = NetworkReachabilityFlags(rawValue: 1 << 4)
    /// A connection will be established on demand.
    public static let connectionOnDemand = NetworkReachabilityFlags(rawValue: 1 << 5)
    /// The host is an address of this machine.
    public static let isLocalAddress = NetworkReachabilityFlags(rawValue: 1 << 16)
    /// The host is reachable without a gateway.
    public static let isDirect = NetworkReachabilityFlags(rawValue: 1 << 17)
    /// The host is reachable over a cellular connection.
    public static let isWWAN = NetworkReachabilityFlags(rawValue: 1 << 18)

    /// The status these flags describe, as ``NetworkReachabilityFlags`` explains.
    public var status: NetworkStatus {
        guard contains(.reachable) else { return .notReachable }
        if contains(.connectionRequired) {
            let automatic = !intersection([.connectionOnTraffic, .connectionOnDemand]).isEmpty
            guard automatic, !contains(.interventionRequired) else { return .notReachable }
        }
        return .reachable(contains(.isWWAN) ? .wwan : .ethernetOrWiFi)
    }
}
