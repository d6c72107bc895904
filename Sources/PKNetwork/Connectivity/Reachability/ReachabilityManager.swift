import Dispatch
import PKCore

/// ProcedureKit's reachability vocabulary, on PKNetwork's ``ConnectivityMonitor``.
public enum Reachability {
    /// The connection a wait asks for: `.any`, `.wifi` (a LAN connection) or `.wwan`.
    public typealias Connectivity = NetworkConnectivity

    /// Waits for connectivity with a ``NetworkReachability``: ProcedureKit's `Reachability.Manager`.
    ///
    /// ```swift
    /// let manager = Reachability.Manager(network)      // network: a NetworkReachability
    /// let wait = NetworkReachabilityWaitProcedure(reachability: manager, connectivity: .wifi)
    /// let fetch = NetworkProcedure(monitor: manager.monitor) { NetworkDataProcedure(session: session, request: r) }
    /// ```
    ///
    /// The manager becomes the source's delegate. It starts the notifier only while something waits, and stops it
    /// when nothing does, as ProcedureKit's did. Without a running notifier it knows nothing: a wait then starts the
    /// notifier and waits for its first report, and ``NetworkProcedure`` retries a connection failure after the
    /// backoff without asking (as ProcedureKit did) instead of waiting for connectivity first. Thread-safe.
    public final class Manager: Sendable {
        /// The monitor that waits: pass it to ``NetworkProcedure`` or ``NetworkRecovery`` as their `monitor`.
        public let monitor: ConnectivityMonitor
        /// The source of flags.
        public let network: any NetworkReachability

        /// Runs `block` once the network offers `connectivity` (at once if the notifier reports it at its start):
        /// ProcedureKit's `whenReachable(via:block:)`. The notifier is stopped before `block` runs when nothing else
        /// waits.
        public func whenReachable(via connectivity: Reachability.Connectivity, block: @escaping @Sendable () -> Void) {
            monitor.wait(for: connectivity, resume: block)
        }

        /// Creates a manager over `network`, and makes it `network`'s delegate.
        public init(_ network: any NetworkReachability) {
            let provider = ReachabilityFlagsProvider(network: network)
            network.delegate = provider
            self.network = network
            self.monitor = ConnectivityMonitor(provider: provider)
        }
    }
}

/// A ``ConnectivityProvider`` fed by a ``NetworkReachability``'s reports: what a ``Reachability/Manager`` monitors.
final class ReachabilityFlagsProvider: ConnectivityProvider, NetworkReachabilityDelegate {

    private struct State {
        /// The last flags reported since the notifier started; `nil` before the first report and once stopped.
        var flags: NetworkReachabilityFlags?
        var onChange: (@Sendable (NetworkStatus) -> Void)?
    }

    private let network: any NetworkReachability
    /// The last flags reported and the monitor's callback; user code (the callback) runs outside it.
    private let state = PKMutex(State())
    private let queue = DispatchQueue(label: "PKNetwork.Reachability.Manager")

    init(network: any NetworkReachability) {
        self.network = network
    }

    /// The reported status, or not reachable when the notifier has not reported (see ``knowsCurrentStatus``).
    func currentStatus() -> NetworkStatus {
        state.withLock { $0.flags }?.status ?? .notReachable
    }

    /// Whether the notifier runs and has reported: otherwise ``currentStatus()`` is a guess.
    var knowsCurrentStatus: Bool { state.withLock { $0.flags != nil } }

    func startMonitoring(onChange: @escaping @Sendable (NetworkStatus) -> Void) {
        state.withLock { $0.onChange = onChange }
        do {
            try network.startNotifier(onQueue: queue)
        } catch {
            Log.write(
                .warning, "Could not start the reachability notifier of \(type(of: network)): \(error)",
                subsystem: "Reachability.Manager")
        }
    }

    func stopMonitoring() {
        state.withLock { state in
            state.onChange = nil
            state.flags = nil
        }
        network.stopNotifier()
    }

    func didChangeReachability(flags: NetworkReachabilityFlags) {
        let onChange = state.withLock { state -> (@Sendable (NetworkStatus) -> Void)? in
            guard let onChange = state.onChange else { return nil }  // a report after the stop: stale
            state.flags = flags
            return onChange
        }
        onChange?(flags.status)
    }
}
