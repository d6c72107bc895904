import PKNetwork

/// A fake ``ConnectivityProvider`` (Linux cannot have its network unplugged by a test): the status is whatever the
/// test sets, and it counts how often monitoring started and stopped.
final class FakeConnectivityProvider: ConnectivityProvider {
    private struct State {
        var status: NetworkStatus
        var onChange: (@Sendable (NetworkStatus) -> Void)?
        var starts = 0
        var stops = 0
    }

    private let state: PKMutex<State>

    init(status: NetworkStatus) { state = PKMutex(State(status: status)) }

    var starts: Int { state.withLock { $0.starts } }
    var stops: Int { state.withLock { $0.stops } }
    var isMonitoring: Bool { state.withLock { $0.onChange != nil } }

    func currentStatus() -> NetworkStatus { state.withLock { $0.status } }

    func startMonitoring(onChange: @escaping @Sendable (NetworkStatus) -> Void) {
        state.withLock {
            $0.starts += 1
            $0.onChange = onChange
        }
    }

    func stopMonitoring() {
        state.withLock {
            $0.stops += 1
            $0.onChange = nil
        }
    }

    /// Sets the status and reports it, outside the lock, if monitoring.
    func set(_ status: NetworkStatus) {
        let onChange = state.withLock { state -> (@Sendable (NetworkStatus) -> Void)? in
            state.status = status
            return state.onChange
        }
        onChange?(status)
    }
}
