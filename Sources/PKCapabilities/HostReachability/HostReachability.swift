import Foundation

extension Capability {

    /// Whether a TCP service answers: a connection to `host:port` within a timeout (a non-blocking `connect(2)`
    /// and `poll(2)`), as a capability.
    ///
    /// ```swift
    /// let database = Capability.HostReachability(host: "db.internal", port: 5432, timeout: .seconds(2))
    /// migrate.add(condition: AuthorizedFor(database))
    /// ```
    ///
    /// - Requirement: none (`Void`).
    /// - Status: ``Status/reachable(address:)`` when a connection was established (and closed at once; nothing
    ///   is sent), otherwise why not: ``Status/refused``, ``Status/timedOut``, ``Status/unresolved(_:)`` or
    ///   ``Status/unreachable(_:)``. Only reachable meets the requirement.
    /// - Available when the host is not empty, the port is not 0 and the timeout is positive.
    /// - Requesting authorization changes nothing and completes at once: reachability cannot be granted. (As
    ///   ProcedureKit's maintainers advised, prefer retrying the work after a failure to checking first; the
    ///   check is for giving a clear answer up front.)
    ///
    /// Each status read resolves the host (`getaddrinfo(3)`, which may consult DNS) and tries its addresses in
    /// order until one connects, within `timeout` in all, on a thread of its own; the completion runs there.
    /// The timeout is real time (a network wait), not a ``/PKCore/ProcedureClock``; a slow resolver is not bounded by
    /// it (`getaddrinfo` has no timeout), so give ``AuthorizedFor`` a `timeout` too when DNS may hang.
    public struct HostReachability: CapabilityProtocol, CustomStringConvertible {

        /// The host name or address.
        public let host: String
        /// The TCP port.
        public let port: UInt16
        /// How long a status read may take, resolving included.
        public let timeout: Duration

        /// Creates the capability for `host:port`, giving each status read `timeout` (three seconds by default).
        public init(host: String, port: UInt16, timeout: Duration = .seconds(3)) {
            self.host = host
            self.port = port
            self.timeout = timeout
        }

        /// There is no requirement beyond being reachable.
        public var requirement: Void? { () }

        /// `true` when the host is not empty, the port is not 0 and the timeout is positive.
        public func isAvailable() -> Bool { unavailableReason() == nil }

        /// Tries to connect on a thread of its own and calls `completion` there with what it found.
        public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
            let (host, port, timeout) = (host, port, timeout)
            // A probe blocks for up to the timeout: on a thread of its own it holds no thread of the shared pool
            // (on Linux, Dispatch's global queues are Swift concurrency's cooperative pool).
            Thread {
                completion(TCPProbe.probe(host: host, port: port, timeout: timeout))
            }.start()
        }

        /// Calls `completion` at once, on the calling thread: reachability cannot be granted.
        public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
            completion()
        }

        /// ``ReachabilityError/invalidTarget(_:)`` for an empty host, port 0 or a timeout that is not positive.
        public func unavailableReason() -> (any Error)? {
            if host.isEmpty { return ReachabilityError.invalidTarget("the host is empty") }
            if port == 0 { return ReachabilityError.invalidTarget("port 0 cannot be connected to") }
            if timeout <= .zero { return ReachabilityError.invalidTarget("the timeout is not positive") }
            return nil
        }

        /// ``ReachabilityError/notReachable(host:port:status:)``.
        public func unauthorizedReason(for status: Status) -> (any Error)? {
            status.meets(requirement: ()) ? nil : ReachabilityError.notReachable(host: host, port: port, status: status)
        }

        /// `HostReachability(<host>:<port>)`.
        public var description: String { "HostReachability(\(host):\(port))" }
    }
}
