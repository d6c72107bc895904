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
    /// The timeout is real time (a network wait), not a ``ProcedureClock``; a slow resolver is not bounded by it
    /// (`getaddrinfo` has no timeout), so give ``AuthorizedFor`` a `timeout` too when DNS may hang.
    public struct HostReachability: CapabilityProtocol, CustomStringConvertible {

        /// What a connection attempt found.
        public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
            /// A connection to this address (such as `127.0.0.1:8080`) was established.
            case reachable(address: String)
            /// Every address refused the connection (nothing listens on the port).
            case refused
            /// No address answered within the timeout.
            case timedOut
            /// The host name could not be resolved; the text is the resolver's message.
            case unresolved(String)
            /// The connection failed otherwise (no route, network down); the text is the system's message.
            case unreachable(String)

            /// `true` only for ``reachable(address:)``.
            public func meets(requirement: Void?) -> Bool {
                if case .reachable = self { return true }
                return false
            }

            /// `reachable(127.0.0.1:8080)`, `refused`, `timedOut`, `unresolved(<message>)` or
            /// `unreachable(<message>)`.
            public var description: String {
                switch self {
                case .reachable(let address): "reachable(\(address))"
                case .refused: "refused"
                case .timedOut: "timedOut"
                case .unresolved(let message): "unresolved(\(message))"
                case .unreachable(let message): "unreachable(\(message))"
                }
            }
        }

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

/// Why ``Capability/HostReachability`` is unavailable or not satisfied.
public enum ReachabilityError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The host, port or timeout cannot be used; the text says which.
    case invalidTarget(String)
    /// The connection failed as `status` says.
    case notReachable(host: String, port: UInt16, status: Capability.HostReachability.Status)

    /// A readable description.
    public var description: String {
        switch self {
        case .invalidTarget(let reason):
            return "The reachability target is invalid: \(reason)"
        case .notReachable(let host, let port, let status):
            let what: String =
                switch status {
                case .reachable: "is reachable"
                case .refused: "refused the connection (nothing listens there?)"
                case .timedOut: "did not answer in time"
                case .unresolved(let message): "could not be resolved: \(message)"
                case .unreachable(let message): "could not be reached: \(message)"
                }
            return "\(host):\(port) \(what)"
        }
    }
}
