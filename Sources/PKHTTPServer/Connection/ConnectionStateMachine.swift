/// A connection's lifecycle and its deadlines: a pure state machine (no sockets, no clock: every event that
/// depends on time is given the instant). ``HTTPConnection`` drives it from the connection's thread and performs
/// its actions; no lock is involved, since only that thread touches a connection.
///
/// ```
/// reading(first request, read timeout from the accept)
///    │ request parsed
///    ▼
/// handling ──response sent, keep-alive──▶ idle(idle timeout) ──first byte──▶ reading(read timeout)
///    │                                      │                                   │
///    └──response sent, close──▶ closed ◀────┴── deadline, shutdown, peer gone ──┘
/// ```
/// A request that is complete already (pipelined) goes from `idle` or `reading` straight to `handling`.
struct ConnectionStateMachine {

    /// The two read deadlines.
    struct Timeouts: Equatable {
        /// For a whole request, head and body, from its first byte (or from the accept for the first request).
        var read: Duration
        /// For the next request's first byte on a kept-alive connection.
        var idle: Duration
    }

    enum State: Equatable {
        /// A request is due, or partly received, by `deadline`.
        case reading(deadline: ContinuousClock.Instant)
        /// Between requests, nothing received yet; the connection closes quietly at `deadline`.
        case idle(deadline: ContinuousClock.Instant)
        /// The handler runs, or its response is being written.
        case handling
        /// Done: the socket is to be closed.
        case closed
    }

    /// What to do when the read deadline passes or the server shuts down.
    enum CloseAction: Equatable {
        /// Answer 408 (a request was partly received), then close.
        case answerTimeoutAndClose
        /// Close without a word.
        case close
    }

    let timeouts: Timeouts
    private(set) var state: State

    /// A connection accepted at `now`.
    init(acceptedAt now: ContinuousClock.Instant, timeouts: Timeouts) {
        self.timeouts = timeouts
        state = .reading(deadline: now.advanced(by: timeouts.read))
    }

    /// The instant the connection's poll gives up at; `nil` while handling or closed (no read is waited for).
    var readDeadline: ContinuousClock.Instant? {
        switch state {
        case .reading(let deadline), .idle(let deadline): deadline
        case .handling, .closed: nil
        }
    }

    /// Bytes arrived at `now`: an idle connection starts reading a request, with its own deadline.
    mutating func bytesReceived(at now: ContinuousClock.Instant) {
        switch state {
        case .idle:
            state = .reading(deadline: now.advanced(by: timeouts.read))
        case .reading:
            break
        case .handling, .closed:
            preconditionFailure("bytes received in state \(state)")
        }
    }

    /// The parser produced a complete request: call the handler.
    mutating func requestParsed() {
        switch state {
        case .reading, .idle:
            state = .handling
        case .handling, .closed:
            preconditionFailure("a request parsed in state \(state)")
        }
    }

    /// The response was written at `now`; whether the connection stays open. `keepAlive`: the request and the
    /// response allow it and the server is not shutting down. `partialRequestBuffered`: bytes of the next request
    /// are already here (pipelined), so its read deadline starts now.
    mutating func responseSent(keepAlive: Bool, partialRequestBuffered: Bool, at now: ContinuousClock.Instant) -> Bool {
        switch state {
        case .handling:
            if !keepAlive {
                state = .closed
            } else if partialRequestBuffered {
                state = .reading(deadline: now.advanced(by: timeouts.read))
            } else {
                state = .idle(deadline: now.advanced(by: timeouts.idle))
            }
            return keepAlive
        case .reading, .idle, .closed:
            preconditionFailure("a response sent in state \(state)")
        }
    }

    /// The read deadline passed.
    mutating func deadlinePassed(partialRequestBuffered: Bool) -> CloseAction {
        switch state {
        case .reading:
            state = .closed
            return partialRequestBuffered ? .answerTimeoutAndClose : .close
        case .idle:
            state = .closed
            return .close
        case .handling, .closed:
            preconditionFailure("a read deadline passed in state \(state)")
        }
    }

    /// The connection ends for another reason: the server shuts down while it waits for a request, the peer
    /// closed, a read or write failed, or the request was refused (the refusal is answered by the caller).
    mutating func closed() {
        state = .closed
    }
}
