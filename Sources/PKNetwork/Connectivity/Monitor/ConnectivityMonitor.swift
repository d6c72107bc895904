import Dispatch
import PKCore

/// Lets procedures wait for connectivity, monitoring its ``ConnectivityProvider`` only while something waits:
/// ProcedureKit's reachability manager.
///
/// A wait whose connectivity is already there is satisfied at once; otherwise the first wait starts the provider's
/// monitoring and the last one to be satisfied or cancelled stops it. Starting and stopping run on a serial queue
/// of the monitor's, in the order the state machine decided them, never under its lock; waits are resumed on the
/// provider's thread, or, when the change stops monitoring, on the monitor's queue after the stop. Thread-safe.
public final class ConnectivityMonitor: Sendable {

    /// A process-wide monitor over an ``InterfaceConnectivityProvider``.
    public static let shared = ConnectivityMonitor(provider: InterfaceConnectivityProvider())

    /// The provider.
    public let provider: any ConnectivityProvider

    private let machine = PKMutex(ConnectivityWaitStateMachine<@Sendable () -> Void>())
    private let control = DispatchQueue(label: "PKNetwork.ConnectivityMonitor")

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
            control.async { [self] in
                provider.startMonitoring { [weak self] status in self?.statusChanged(to: status) }
                // A change between the first read and the start would otherwise be missed.
                statusChanged(to: provider.currentStatus())
            }
        }
        return added.id
    }

    /// Cancels the wait `id` without calling its `resume`; stops monitoring if nobody else waits.
    public func cancelWait(_ id: Int) {
        let removed = machine.withLock { $0.remove(id) }
        if removed.stopMonitoring { control.async { [provider] in provider.stopMonitoring() } }
    }

    /// Resumes the waits the status satisfies. When that leaves nobody waiting, monitoring stops first and the
    /// waits resume after it, on the monitor's queue (as ProcedureKit's manager stopped its notifier before running
    /// the blocks): a resumed wait sees the provider stopped.
    private func statusChanged(to status: NetworkStatus) {
        let action = machine.withLock { $0.statusChanged(to: status) }
        if action.stopMonitoring {
            let resumes = action.resume
            control.async { [provider] in
                provider.stopMonitoring()
                for resume in resumes { resume() }
            }
        } else {
            for resume in action.resume { resume() }
        }
    }
}
