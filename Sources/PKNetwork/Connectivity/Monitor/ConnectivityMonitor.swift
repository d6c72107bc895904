import Dispatch
import PKCore

/// Lets procedures wait for connectivity, monitoring its ``ConnectivityProvider`` only while something waits:
/// ProcedureKit's reachability manager.
///
/// A wait whose connectivity is already there is satisfied at once; otherwise the first wait starts the provider's
/// monitoring and the last one to be satisfied or cancelled stops it. Starting and stopping run on a serial queue
/// of the monitor's, never under its lock: each job there brings the provider in line with what the state machine
/// wants at that moment (so a stop and a start decided on two threads cannot leave the provider stopped while
/// someone waits). Waits are resumed on the provider's thread; when the change that satisfies them stops
/// monitoring, they are resumed after the stop, on a global queue (as ProcedureKit's manager stopped its notifier
/// before running the blocks). Thread-safe.
public final class ConnectivityMonitor: Sendable {

    /// A process-wide monitor over an ``InterfaceConnectivityProvider``.
    public static let shared = ConnectivityMonitor(provider: InterfaceConnectivityProvider())

    /// The provider.
    public let provider: any ConnectivityProvider

    private let machine = PKMutex(ConnectivityWaitStateMachine<@Sendable () -> Void>())
    private let control = DispatchQueue(label: "PKNetwork.ConnectivityMonitor")
    /// Whether the provider was last started (not stopped); read and written only by jobs on `control`.
    private let providerRunning = PKMutex(false)

    /// Creates a monitor over `provider`.
    public init(provider: any ConnectivityProvider) {
        self.provider = provider
    }

    /// Whether the provider is being monitored (someone waits).
    public var isMonitoring: Bool { machine.withLock { $0.isMonitoring } }

    /// Calls `resume` once the status satisfies `connectivity` (at once if it does now). Returns an identifier for
    /// ``cancelWait(_:)``, or `nil` when `resume` already ran.
    @discardableResult
    public func wait(for connectivity: NetworkConnectivity, resume: @escaping @Sendable () -> Void) -> Int? {
        let status = provider.currentStatus()
        let added = machine.withLock { $0.add(resume, for: connectivity, status: status) }
        switch added.action {
        case .resume(let waiter):
            waiter()
        case .none:
            break
        case .startMonitoring:
            control.async { [self] in reconcileProvider() }
        }
        return added.id
    }

    /// Cancels the wait `id`; stops monitoring if nobody else waits. Its `resume` is not called, unless a status
    /// change had already satisfied it (then it may still run, once, after this returns).
    public func cancelWait(_ id: Int) {
        let removed = machine.withLock { $0.remove(id) }
        if removed.stopMonitoring { control.async { [self] in reconcileProvider() } }
    }

    /// Resumes the waits the status satisfies; see the type's notes on threads.
    private func statusChanged(to status: NetworkStatus) {
        let action = machine.withLock { $0.statusChanged(to: status) }
        if action.stopMonitoring {
            let resumes = action.resume
            control.async { [self] in
                reconcileProvider()
                guard !resumes.isEmpty else { return }
                // Not on `control`: user code there would hold up every start and stop of this monitor.
                DispatchQueue.global().async { for resume in resumes { resume() } }
            }
        } else {
            for resume in action.resume { resume() }
        }
    }

    /// On `control`: starts or stops the provider so that it runs exactly while the state machine monitors.
    private func reconcileProvider() {
        let wanted = machine.withLock { $0.isMonitoring }
        let changes = providerRunning.withLock { running in
            defer { running = wanted }
            return running != wanted
        }
        guard changes else { return }
        if wanted {
            provider.startMonitoring { [weak self] status in self?.statusChanged(to: status) }
            // A change between the first read and the start would otherwise be missed.
            statusChanged(to: provider.currentStatus())
        } else {
            provider.stopMonitoring()
        }
    }
}
