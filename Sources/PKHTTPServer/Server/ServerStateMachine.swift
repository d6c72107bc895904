/// The server's lifecycle and its registry of open connections: a pure state machine (no locks, no sockets).
/// ``HTTPServer`` holds it in its mutex and performs the returned actions after releasing it.
///
/// ```
/// idle ──start──▶ starting ──bound──▶ running ──shutdown──▶ stopping ──waited──▶ stopped
///   │                │  └─bindFailed─▶ idle                                          ▲
///   │                └──shutdown──▶ abandoningStart ──bound / bindFailed────────────┤
///   └──shutdown─────────────────────────────────────────────────────────────────────┘
/// ```
struct ServerStateMachine {

    /// The connections being served, by identifier.
    struct Registry {
        var connections: [UInt64: ConnectionSocket] = [:]
        var nextIdentifier: UInt64 = 0
    }

    enum State {
        /// Made, not started.
        case idle
        /// `start()` is binding.
        case starting
        /// `shutdown()` came while `start()` was binding: the listener is closed as soon as it exists.
        case abandoningStart
        /// Accepting and serving.
        case running(port: UInt16, wake: WakePipe, registry: Registry)
        /// Shutdown has woken everyone and waits for the connections to end.
        case stopping(port: UInt16, wake: WakePipe, registry: Registry)
        /// Shut down; `lingering` are connections whose handlers outlasted the shutdown's bound (their threads
        /// close them when the handlers return).
        case stopped(port: UInt16?, lingering: Registry)
    }

    enum StartAction: Equatable {
        case bind
        case fail(HTTPServerError.Code)
    }

    enum BoundAction {
        /// Start the acceptor.
        case accept
        /// Shutdown came meanwhile: close the listener.
        case closeListener
    }

    enum AcceptAction: Equatable {
        /// Serve it on a thread of its own, under this identifier.
        case serve(UInt64)
        /// Over the cap: answer 503 and close.
        case reject
        /// Shutting down: close it.
        case close
    }

    enum ShutdownAction {
        /// Signal the wake pipe, then wait for the connections.
        case wakeAndWait(WakePipe)
        /// Another shutdown is in progress: wait for the connections too.
        case wait
        /// Nothing runs; `drained` tells whether connections still linger from an earlier shutdown.
        case done(drained: Bool)
    }

    let maxConnections: Int
    private(set) var state: State = .idle

    init(maxConnections: Int) {
        self.maxConnections = maxConnections
    }

    /// The bound port, once bound.
    var port: UInt16? {
        switch state {
        case .idle, .starting, .abandoningStart: nil
        case .running(let port, _, _), .stopping(let port, _, _): port
        case .stopped(let port, _): port
        }
    }

    mutating func startRequested() -> StartAction {
        switch state {
        case .idle:
            state = .starting
            return .bind
        case .starting, .abandoningStart, .running, .stopping:
            return .fail(.alreadyStarted)
        case .stopped:
            return .fail(.shutDown)
        }
    }

    mutating func bindFailed() {
        switch state {
        case .starting: state = .idle
        case .abandoningStart: state = .stopped(port: nil, lingering: Registry())
        case .idle, .running, .stopping, .stopped: preconditionFailure("bind failed in state \(state)")
        }
    }

    mutating func bound(port: UInt16, wake: WakePipe) -> BoundAction {
        switch state {
        case .starting:
            state = .running(port: port, wake: wake, registry: Registry())
            return .accept
        case .abandoningStart:
            state = .stopped(port: nil, lingering: Registry())
            return .closeListener
        case .idle, .running, .stopping, .stopped:
            preconditionFailure("bound in state \(state)")
        }
    }

    mutating func accepted(_ socket: ConnectionSocket) -> AcceptAction {
        switch state {
        case .running(let port, let wake, var registry):
            guard registry.connections.count < maxConnections else { return .reject }
            let identifier = registry.nextIdentifier
            registry.nextIdentifier += 1
            registry.connections[identifier] = socket
            state = .running(port: port, wake: wake, registry: registry)
            return .serve(identifier)
        case .stopping, .stopped:
            // The acceptor saw a connection just before it saw the wake pipe.
            return .close
        case .idle, .starting, .abandoningStart:
            preconditionFailure("accepted a connection in state \(state)")
        }
    }

    /// A connection's thread ended it (or could not be started).
    mutating func connectionEnded(_ identifier: UInt64) {
        switch state {
        case .running(let port, let wake, var registry):
            registry.connections[identifier] = nil
            state = .running(port: port, wake: wake, registry: registry)
        case .stopping(let port, let wake, var registry):
            registry.connections[identifier] = nil
            state = .stopping(port: port, wake: wake, registry: registry)
        case .stopped(let port, var lingering):
            lingering.connections[identifier] = nil
            state = .stopped(port: port, lingering: lingering)
        case .idle, .starting, .abandoningStart:
            preconditionFailure("a connection ended in state \(state)")
        }
    }

    mutating func shutdownRequested() -> ShutdownAction {
        switch state {
        case .idle:
            state = .stopped(port: nil, lingering: Registry())
            return .done(drained: true)
        case .starting:
            state = .abandoningStart
            return .wait
        case .abandoningStart, .stopping:
            return .wait
        case .running(let port, let wake, let registry):
            state = .stopping(port: port, wake: wake, registry: registry)
            return .wakeAndWait(wake)
        case .stopped(_, let lingering):
            return .done(drained: lingering.connections.isEmpty)
        }
    }

    /// The shutdown's bound passed: the sockets of the connections still open, to shut down.
    func connectionsToForce() -> [ConnectionSocket] {
        switch state {
        case .stopping(_, _, let registry): Array(registry.connections.values)
        case .stopped(_, let lingering): Array(lingering.connections.values)
        case .idle, .starting, .abandoningStart, .running: []
        }
    }

    /// The shutdown's wait ended (every thread finished, or the bound passed).
    mutating func shutdownWaited() {
        switch state {
        case .stopping(let port, _, let registry):
            state = .stopped(port: port, lingering: registry)
        case .abandoningStart, .stopped:
            break
        case .idle, .starting, .running:
            preconditionFailure("shutdown waited in state \(state)")
        }
    }
}
