import Dispatch
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A small HTTP/1.1 server: keep-alive, `Content-Length` bodies, limits and timeouts against slow or malformed
/// clients, server-sent events, and a bounded number of connections, each served on a thread of its own.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(host: "127.0.0.1", port: 8080)) { request in
///     request.path == "/health" ? .text("ok") : .text("not found", status: .notFound)
/// }
/// try server.start()
/// // …
/// server.shutdown()
/// ```
///
/// Threads: one acceptor thread, and one thread per open connection (at most
/// ``Configuration/maxConnections``), which reads the requests, calls the handler, and writes the responses. The
/// handler is called on a connection's thread, never under a lock, and may block (a database query); requests on
/// one connection are handled one after another, requests on different connections concurrently. A connection
/// accepted over the cap is answered 503 and closed by the acceptor.
///
/// The server answers malformed or oversized requests itself with a 4xx or 5xx and closes that connection; the
/// handler sees only valid requests with a decoded, normalised path (see ``HTTPRequest/path``). Request bodies
/// with `Transfer-Encoding` (chunked) are answered `501 Not Implemented`.
///
/// A started server runs until ``shutdown()``, even with no reference left to it (its threads hold one).
public final class HTTPServer: Sendable {

    /// Answers a request; called on the connection's thread. It may block; it runs under no lock of the server.
    public typealias Handler = @Sendable (HTTPRequest) -> HTTPResponse

    /// The configuration the server was made with.
    public let configuration: Configuration

    private let handler: Handler
    /// The lifecycle and the registry of connections. A leaf lock: nothing else is locked, and no handler or
    /// blocking call runs, while it is held.
    private let state: PKMutex<ServerStateMachine>
    /// Entered by `start()` while it binds, by the acceptor and by each connection's thread while they run;
    /// `shutdown()` waits on it.
    private let threads = DispatchGroup()

    /// Creates a server that will call `handler` for every valid request; it listens only once started.
    public init(configuration: Configuration = Configuration(), handler: @escaping Handler) {
        self.configuration = configuration
        self.handler = handler
        state = PKMutex(ServerStateMachine(maxConnections: max(1, configuration.maxConnections)))
    }

    /// The bound port once ``start()`` has returned (the system's choice when the configured port is 0); `nil`
    /// before.
    public var port: UInt16? {
        state.withLock { $0.port }
    }

    /// Binds and listens, then accepts connections on a thread of its own; returns once the socket listens.
    ///
    /// Throws ``HTTPServerError`` when the address cannot be bound (``HTTPServerError/Code/bind`` with `EADDRINUSE`
    /// for a port in use), when called a second time, or after ``shutdown()``.
    public func start() throws(HTTPServerError) {
        switch state.withLock({ $0.startRequested() }) {
        case .fail(.alreadyStarted):
            throw HTTPServerError(.alreadyStarted, "the server was started already")
        case .fail(let code):
            throw HTTPServerError(code, "the server was shut down")
        case .bind:
            break
        }
        threads.enter()
        defer { threads.leave() }
        let listener: Int32
        let port: UInt16
        let wake: WakePipe
        do throws(HTTPServerError) {
            guard let pipe = WakePipe() else { throw HTTPServerError(.socket, systemError: errno, "pipe") }
            (listener, port) = try Socket.listen(
                host: configuration.host, port: configuration.port, backlog: configuration.backlog)
            wake = pipe
        } catch {
            state.withLock { $0.bindFailed() }
            throw error
        }
        switch state.withLock({ $0.bound(port: port, wake: wake) }) {
        case .closeListener:
            close(listener)
        case .accept:
            threads.enter()
            guard ServerThread.start({ [self] in acceptLoop(listener: listener, wake: wake) }) else {
                // No thread for the acceptor: stop as if shut down (nothing to wait for: nothing was accepted).
                threads.leave()
                close(listener)
                if case .wakeAndWait(let woken) = state.withLock({ $0.shutdownRequested() }) { woken.signal() }
                state.withLock { $0.shutdownWaited() }
                wake.close()
                throw HTTPServerError(.socket, systemError: EAGAIN, "no thread for the acceptor")
            }
        }
    }

    /// Stops: closes the listening socket, closes idle connections and those reading a request, and waits up to
    /// ``Configuration/shutdownTimeout`` for handlers in flight to finish their responses (each then closes its
    /// connection); event streams see the stream close. Past that bound it shuts the remaining sockets down and
    /// gives their threads up to a second more to end.
    ///
    /// Returns `true` when every connection thread ended in time: the server then holds no thread and no
    /// descriptor. `false` when a handler is still running: its thread closes its socket and ends when the
    /// handler returns. Blocks the calling thread; safe to call more than once and from several threads (every
    /// call waits). A server that was shut down does not start again.
    @discardableResult
    public func shutdown() -> Bool {
        var woken: WakePipe?
        switch state.withLock({ $0.shutdownRequested() }) {
        case .done(let drained):
            return drained
        case .wakeAndWait(let wake):
            wake.signal()
            woken = wake
        case .wait:
            break
        }
        var drained = threads.wait(timeout: Self.dispatchTime(after: configuration.shutdownTimeout)) == .success
        if !drained {
            for socket in state.withLock({ $0.connectionsToForce() }) { socket.forceShutdown() }
            drained = threads.wait(timeout: Self.dispatchTime(after: .seconds(1))) == .success
        }
        state.withLock { $0.shutdownWaited() }
        // No thread polls the pipe any more: close it now rather than when the threads' closures are released.
        if drained { woken?.close() }
        return drained
    }

    private static func dispatchTime(after duration: Duration) -> DispatchTime {
        let (seconds, attoseconds) = min(duration, .seconds(86_400)).components
        return .now() + .nanoseconds(Int(seconds) * 1_000_000_000 + Int(attoseconds / 1_000_000_000))
    }

    /// The acceptor thread: accepts until shutdown wakes it, then closes the listener.
    private func acceptLoop(listener: Int32, wake: WakePipe) {
        defer {
            close(listener)
            threads.leave()
        }
        while true {
            switch Socket.waitReadable(listener, wake: wake, deadline: nil) {
            case .woken, .timedOut:
                return
            case .readable:
                break
            }
            while let (descriptor, peer) = Socket.accept(listener) {
                admit(ConnectionSocket(descriptor), peer: peer, wake: wake)
            }
            if errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM {
                // Out of descriptors: the pending connection stays in the backlog; pause rather than spin.
                if Socket.waitReadable(wake.readEnd, wake: wake, deadline: .now.advanced(by: .milliseconds(100)))
                    != .timedOut
                {
                    return
                }
            }
        }
    }

    /// Serves an accepted connection on a thread of its own, or turns it away.
    private func admit(_ socket: ConnectionSocket, peer: String, wake: WakePipe) {
        switch state.withLock({ $0.accepted(socket) }) {
        case .close:
            socket.close()
        case .reject:
            reject(socket)
        case .serve(let identifier):
            let connection = HTTPConnection(
                socket: socket, peerAddress: peer, acceptedAt: .now, wake: wake, configuration: configuration,
                handler: handler)
            threads.enter()
            let started = ServerThread.start { [self] in
                connection.run()
                state.withLock { $0.connectionEnded(identifier) }
                threads.leave()
            }
            if !started {
                state.withLock { $0.connectionEnded(identifier) }
                threads.leave()
                reject(socket)
            }
        }
    }

    /// Answers 503 without waiting (the socket is non-blocking: what does not fit is dropped) and closes.
    private func reject(_ socket: ConnectionSocket) {
        let answer = ResponseHead.errorResponse(
            .serviceUnavailable, message: "Too many connections; try again later.",
            defaults: configuration.defaultHeaders)
        _ = Socket.sendAll(socket.descriptor, answer, deadline: .now)
        Socket.shutdownWrite(socket.descriptor)
        socket.close()
    }
}
