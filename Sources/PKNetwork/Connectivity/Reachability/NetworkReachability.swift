import Dispatch

/// A source of reachability flags, reporting changes to its delegate: ProcedureKit's `NetworkReachability`, the
/// seam its tests replace with a double (PKTesting's `TestableNetworkReachability`).
///
/// Wrap one in a ``Reachability/Manager`` to wait for connectivity with it. On Linux the production source is
/// ``InterfaceConnectivityProvider`` (a ``ConnectivityProvider``, which needs no flags); this protocol is for code
/// and tests ported from ProcedureKit.
///
/// Conforming types must be thread-safe: the manager calls them from its own queue and from waiting procedures.
public protocol NetworkReachability: AnyObject, Sendable {
    /// The delegate told of every change; held weakly by conforming types, as in ProcedureKit.
    var delegate: (any NetworkReachabilityDelegate)? { get set }

    /// Starts reporting changes to ``delegate``, beginning with the current flags, on `queue` or any thread.
    func startNotifier(onQueue queue: DispatchQueue) throws

    /// Stops reporting changes.
    func stopNotifier()
}

/// Told of reachability changes by a ``NetworkReachability``: ProcedureKit's `NetworkReachabilityDelegate`.
public protocol NetworkReachabilityDelegate: AnyObject, Sendable {
    /// The flags are now `flags`.
    func didChangeReachability(flags: NetworkReachabilityFlags)
}
