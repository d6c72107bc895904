import PKCore

/// An open `text/event-stream` response (server-sent events), handed to the closure of
/// ``HTTPResponse/eventStream(headers:_:)``.
///
/// The closure runs on the connection's thread and owns the connection until it returns; it writes with
/// ``send(data:event:id:)`` and waits between events with ``wait(for:)``, which returns early when the client goes
/// or the server shuts down. Once ``isOpen`` is `false` every send fails at once: return then.
///
/// ```swift
/// .eventStream { stream in
///     while stream.wait(for: .seconds(1)) {
///         guard stream.send(data: currentStatsJSON(), event: "stats") else { return }
///     }
/// }
/// ```
///
/// Thread-safe: sends from several threads are written one after another (a lock serialises them); waits are
/// meant for the closure's thread.
public final class HTTPEventStream: Sendable {

    private let socket: ConnectionSocket
    private let wake: WakePipe
    private let writeTimeout: Duration
    private let open = PKMutex(true)

    init(socket: ConnectionSocket, wake: WakePipe, writeTimeout: Duration) {
        self.socket = socket
        self.wake = wake
        self.writeTimeout = writeTimeout
    }

    /// Whether the stream can still be written: the client has not gone, no write failed or timed out, and the
    /// server is not shutting down.
    public var isOpen: Bool {
        !wake.isSignalled && open.withLock { $0 }
    }

    /// Sends one event: `data` (on one `data:` line per line of it), with an `event:` type and an `id:` when
    /// given (CR and LF in them are dropped). `false` when the stream is closed or the write failed; the stream is
    /// then closed for good.
    @discardableResult
    public func send(data: String, event: String? = nil, id: String? = nil) -> Bool {
        var text = ""
        if let event { text += "event: \(Self.singleLine(event))\n" }
        if let id { text += "id: \(Self.singleLine(id))\n" }
        for line in data.split(separator: "\n", omittingEmptySubsequences: false) {
            text += "data: \(line.last == "\r" ? line.dropLast() : line)\n"
        }
        return write(text + "\n")
    }

    /// Sends a comment line (`: text`), which clients ignore: a keep-alive through proxies that close quiet
    /// connections. `false` when the stream is closed.
    @discardableResult
    public func sendComment(_ text: String = "") -> Bool {
        write(": \(Self.singleLine(text))\n\n")
    }

    /// Blocks the calling thread for `duration`, or until the client closes the connection or the server shuts
    /// down; returns whether the stream is still open. Bytes the client sends meanwhile are read and ignored.
    public func wait(for duration: Duration) -> Bool {
        let deadline = ContinuousClock.now.advanced(by: min(duration, .seconds(86_400)))
        var scratch = [UInt8](repeating: 0, count: 1024)
        while isOpen {
            switch Socket.waitReadable(socket.descriptor, wake: wake, deadline: deadline) {
            case .timedOut:
                return isOpen
            case .woken:
                return false
            case .readable:
                guard let count = Socket.receive(socket.descriptor, into: &scratch) else { continue }
                if count <= 0 {
                    open.withLock { $0 = false }
                    return false
                }
            }
        }
        return false
    }

    /// Closes the stream for good; the connection calls it before it closes the socket, so that a send from
    /// another thread never reaches a closed (or reused) descriptor.
    func finish() {
        open.withLock { $0 = false }
    }

    private func write(_ text: String) -> Bool {
        guard !wake.isSignalled else { return false }
        let bytes = Array(text.utf8)
        return open.withLock { open in
            guard open else { return false }
            // PKMutex leaf: a send under it (bounded by the write timeout) keeps concurrent events whole.
            open = Socket.sendAll(socket.descriptor, bytes, deadline: ContinuousClock.now.advanced(by: writeTimeout))
            return open
        }
    }

    private static func singleLine(_ text: String) -> String {
        String(text.filter { $0 != "\r" && $0 != "\n" })
    }
}
