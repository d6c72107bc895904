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
}
