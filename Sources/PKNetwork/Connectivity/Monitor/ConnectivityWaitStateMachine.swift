/// Who waits for which connectivity, and whether the provider is being monitored: no locks, no callbacks.
///
/// Monitoring runs exactly while at least one wait is registered: the first wait starts it, the last one to be
/// satisfied or cancelled stops it (ProcedureKit's notifier rule).
struct ConnectivityWaitStateMachine<Waiter> {

    enum State {
        /// Nobody waits; the provider is not monitored.
        case idle
        /// These waits are registered; the provider is monitored.
        case monitoring([Int: (NetworkConnectivity, Waiter)])
    }

    enum AddAction {
        /// The status already satisfies the wait: resume it now.
        case resume(Waiter)
        /// Registered; nothing else to do.
        case none
        /// Registered as the first wait: start monitoring.
        case startMonitoring
    }

    struct ChangeAction {
        /// The waits the new status satisfies.
        var resume: [Waiter] = []
        /// Whether monitoring should stop (no waits remain).
        var stopMonitoring = false
    }

    private(set) var state: State = .idle
    private var nextID = 0

    /// A wait for `connectivity` arrives, with the status read just before.
    mutating func add(
        _ waiter: Waiter, for connectivity: NetworkConnectivity, status: NetworkStatus
    ) -> (id: Int?, action: AddAction) {
        if status.satisfies(connectivity) { return (nil, .resume(waiter)) }
        nextID += 1
        switch state {
        case .idle:
            state = .monitoring([nextID: (connectivity, waiter)])
            return (nextID, .startMonitoring)
        case .monitoring(var waits):
            waits[nextID] = (connectivity, waiter)
            state = .monitoring(waits)
            return (nextID, .none)
        }
    }

    /// The provider reported `status`.
    mutating func statusChanged(to status: NetworkStatus) -> ChangeAction {
        switch state {
        case .idle:
            return ChangeAction()
        case .monitoring(var waits):
            var action = ChangeAction()
            for (id, wait) in waits where status.satisfies(wait.0) {
                action.resume.append(wait.1)
                waits[id] = nil
            }
            state = waits.isEmpty ? .idle : .monitoring(waits)
            action.stopMonitoring = waits.isEmpty
            return action
        }
    }

    /// The wait `id` was cancelled; returns it (if still registered) and whether monitoring should stop.
    mutating func remove(_ id: Int) -> (waiter: Waiter?, stopMonitoring: Bool) {
        switch state {
        case .idle:
            return (nil, false)
        case .monitoring(var waits):
            guard let wait = waits.removeValue(forKey: id) else { return (nil, false) }
            state = waits.isEmpty ? .idle : .monitoring(waits)
            return (wait.1, waits.isEmpty)
        }
    }

    /// Whether the provider is being monitored.
    var isMonitoring: Bool {
        if case .monitoring = state { return true }
        return false
    }
}
