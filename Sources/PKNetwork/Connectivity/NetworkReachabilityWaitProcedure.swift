import PKCore

/// Finishes once the network offers `connectivity`: what ``NetworkProcedure`` runs before retrying an attempt that
/// failed for want of a network (ProcedureKit's `NetworkReachabilityWaitProcedure`).
///
/// It asks its ``ConnectivityMonitor`` at once and finishes if the connectivity is there; otherwise it waits,
/// and the monitor watches its provider only while it does. Cancellation: a cancelled wait stops waiting and
/// finishes at once, cancelled.
public final class NetworkReachabilityWaitProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `waitID` is guarded by its PKMutex; `connectivity` and `monitor` are immutable.

    /// The connectivity waited for.
    public let connectivity: NetworkConnectivity
    /// The monitor asked.
    public let monitor: ConnectivityMonitor
    private let waitID = PKMutex<Int?>(nil)

    /// Creates a wait for `connectivity` through `monitor`.
    public init(connectivity: NetworkConnectivity = .any, monitor: ConnectivityMonitor = .shared) {
        self.connectivity = connectivity
        self.monitor = monitor
        super.init()
        name = "NetworkReachabilityWait(\(connectivity))"
        addDidCancelBlockObserver { procedure, _ in
            if let id = procedure.waitID.withLock({ $0 }) { procedure.monitor.cancelWait(id) }
            procedure.finish()
        }
    }

    /// Creates a wait for `connectivity` through a ProcedureKit-style ``Reachability/Manager``:
    /// ProcedureKit's initialiser (internal there), with `connectivity:` for its `via:`.
    public convenience init(reachability: Reachability.Manager, connectivity: NetworkConnectivity = .any) {
        self.init(connectivity: connectivity, monitor: reachability.monitor)
    }

    /// Creates a wait for `connectivity` through a ``Reachability/Manager``, with ProcedureKit's label.
    public convenience init(reachability: Reachability.Manager, via connectivity: NetworkConnectivity) {
        self.init(connectivity: connectivity, monitor: reachability.monitor)
    }

    /// Waits.
    public override func execute() {
        let id = monitor.wait(for: connectivity) { [self] in finish() }
        waitID.withLock { $0 = id }
    }
}
