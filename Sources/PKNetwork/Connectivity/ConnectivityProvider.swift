/// Where PKNetwork learns whether the machine has a network: plug in your own (from NetworkManager, systemd-networkd
/// or a health check), or use ``InterfaceConnectivityProvider``, the Linux default.
///
/// SystemConfiguration, which ProcedureKit used, does not exist on Linux.
public protocol ConnectivityProvider: Sendable {
    /// The status now.
    func currentStatus() -> NetworkStatus

    /// Starts reporting changes to `onChange`, on any thread, until ``stopMonitoring()``. Called by a
    /// ``ConnectivityMonitor`` only while something waits, and never twice without a stop in between.
    func startMonitoring(onChange: @escaping @Sendable (NetworkStatus) -> Void)

    /// Stops reporting changes.
    func stopMonitoring()

    /// Whether ``currentStatus()`` is known now. A provider that learns the status only from reports while it
    /// monitors (a ``Reachability/Manager``'s) says `false` when it has none; ``NetworkRecovery`` then retries a
    /// connection failure after the backoff instead of waiting for connectivity. `true` by default.
    var knowsCurrentStatus: Bool { get }
}

extension ConnectivityProvider {
    /// `true`: the provider can read the status at any time.
    public var knowsCurrentStatus: Bool { true }
}
