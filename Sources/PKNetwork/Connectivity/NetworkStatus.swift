/// Whether the machine has a network connection, and of what kind, as a ``ConnectivityProvider`` sees it.
public enum NetworkStatus: Sendable, Hashable {
    /// No usable network interface.
    case notReachable
    /// A usable interface of this kind.
    case reachable(NetworkConnectionType)

    /// Whether this status satisfies `connectivity`: `.any` takes any connection, `.wifi` needs
    /// ``NetworkConnectionType/ethernetOrWiFi`` (a WWAN connection does not do), `.wwan` needs
    /// ``NetworkConnectionType/wwan``.
    public func satisfies(_ connectivity: NetworkConnectivity) -> Bool {
        switch (self, connectivity) {
        case (.notReachable, _): false
        case (.reachable, .any): true
        case (.reachable(let type), .wifi): type == .ethernetOrWiFi
        case (.reachable(let type), .wwan): type == .wwan
        }
    }
}

/// The kind of a network connection.
public enum NetworkConnectionType: Sendable, Hashable {
    /// A wired or wireless LAN interface (Linux cannot tell these apart without more privileges).
    case ethernetOrWiFi
    /// A cellular modem (`wwan*` interfaces).
    case wwan
}

/// The connection a wait asks for: ProcedureKit's `Reachability.Connectivity`.
public enum NetworkConnectivity: Sendable, Hashable {
    /// Any connection.
    case any
    /// A LAN connection (ProcedureKit's `.wifi`).
    case wifi
    /// A cellular connection.
    case wwan
}
