import Dispatch
import PKNetwork

/// A fake reachability source for tests: ProcedureKit's `TestableNetworkReachability`. Setting ``flags`` reports
/// them to the delegate; ``didStartNotifier`` and ``didStopNotifier`` record the manager's calls.
///
/// ```swift
/// let network = TestableNetworkReachability()
/// let manager = Reachability.Manager(network)
/// network.flags = .connectionRequired
/// let wait = NetworkReachabilityWaitProcedure(reachability: manager)   // waits until flags = .reachable
/// ```
///
/// Unlike ProcedureKit's it reports a change only while the notifier runs (started and not stopped), as a real
/// source does, and has no `log` property. Thread-safe: state is guarded by a lock; the delegate is told outside it.
public final class TestableNetworkReachability: NetworkReachability {

    private struct State {
        var flags: NetworkReachabilityFlags = .reachable
        /// Counts changes of `flags`, so that a report read before a change is followed by the newer one.
        var version = 0
        var didStartNotifier = false
        var didStopNotifier = false
        var isNotifying = false
        weak var delegate: (any NetworkReachabilityDelegate)?
    }

    /// Flags, records and the delegate; user code (the delegate) never runs under it.
    private let state = PKMutex(State())

    /// Creates a source whose flags are `.reachable`.
    public init() {}

    /// The current flags; setting them tells the delegate while the notifier runs.
    public var flags: NetworkReachabilityFlags {
        get { state.withLock { $0.flags } }
        set {
            let delegate = state.withLock { state in
                state.flags = newValue
                state.version += 1
                return state.isNotifying ? state.delegate : nil
            }
            delegate?.didChangeReachability(flags: newValue)
        }
    }

    /// Whether ``startNotifier(onQueue:)`` was called.
    public var didStartNotifier: Bool {
        get { state.withLock { $0.didStartNotifier } }
        set { state.withLock { $0.didStartNotifier = newValue } }
    }

    /// Whether ``stopNotifier()`` was called.
    public var didStopNotifier: Bool {
        get { state.withLock { $0.didStopNotifier } }
        set { state.withLock { $0.didStopNotifier = newValue } }
    }

    /// The delegate, held weakly.
    public var delegate: (any NetworkReachabilityDelegate)? {
        get { state.withLock { $0.delegate } }
        set { state.withLock { $0.delegate = newValue } }
    }

    /// Records the start and reports the current flags (again, if they changed while it reported, so that the last
    /// report is never older than a concurrent change's).
    public func startNotifier(onQueue queue: DispatchQueue) throws {
        var (delegate, flags, version) = state.withLock { state in
            state.didStartNotifier = true
            state.isNotifying = true
            return (state.delegate, state.flags, state.version)
        }
        while true {
            delegate?.didChangeReachability(flags: flags)
            let latest = state.withLock { state in
                state.version == version || !state.isNotifying ? nil : (state.delegate, state.flags, state.version)
            }
            guard let latest else { return }
            (delegate, flags, version) = latest
        }
    }

    /// Records the stop.
    public func stopNotifier() {
        state.withLock { state in
            state.didStopNotifier = true
            state.isNotifying = false
        }
    }
}
