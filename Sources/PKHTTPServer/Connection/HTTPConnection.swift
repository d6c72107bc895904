/// One connection's life on its own thread: read with deadlines, parse, call the handler, write, until the
/// connection closes. Only this thread reads, writes or closes the socket (see ``ConnectionSocket``).
///
/// The lifecycle and the deadlines are ``ConnectionStateMachine``'s; this type performs the reads and writes:
/// - the first request must arrive, head and body, within the read timeout of the accept;
/// - between requests the connection may stay idle for the idle timeout; the next request's first byte starts
///   its own read timeout, for its whole head and body (a client trickling bytes is cut off: 408, then closed);
/// - each response must be written within the write timeout.
/// Shutdown wakes the poll: a connection that is idle or reading a request closes; one in its handler finishes
/// the response (with `Connection: close`) and then closes.
struct HTTPConnection {

    let socket: ConnectionSocket
    let peerAddress: String
    /// When the acceptor accepted it: the first request's read deadline counts from there.
    let acceptedAt: ContinuousClock.Instant
    let wake: WakePipe
    let configuration: HTTPServer.Configuration
    let handler: HTTPServer.Handler

    /// Serves requests until the connection is to close, then closes the socket.
    func run() {
        defer { socket.close() }
        var parser = HTTPRequestParser(limits: configuration.limits)
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var machine = ConnectionStateMachine(
            acceptedAt: acceptedAt,
            timeouts: .init(read: configuration.readTimeout, idle: configuration.idleTimeout))
        var sentContinue = false
        while true {
            switch parser.next() {
            case .request(let parsed):
                machine.requestParsed()
                sentContinue = false
                let keepAlive = respond(to: parsed)
                guard
                    machine.responseSent(
                        keepAlive: keepAlive, partialRequestBuffered: parser.hasPartialRequest, at: .now)
                else { return }
                continue
            case .failure(let error):
                machine.closed()
                refuse(error.status, error.message)
                return
            case .needMoreBytes:
                break
            }
            if parser.awaitsBodyAfterContinue && !sentContinue {
                sentContinue = true
                guard send(Array("HTTP/1.1 100 Continue\r\n\r\n".utf8)) else { return }
            }
            switch Socket.waitReadable(socket.descriptor, wake: wake, deadline: machine.readDeadline) {
            case .woken:
                machine.closed()
                return
            case .timedOut:
                if machine.deadlinePassed(partialRequestBuffered: parser.hasPartialRequest) == .answerTimeoutAndClose {
                    refuse(.requestTimeout, "The request was not received in time.")
                }
                return
            case .readable:
                guard let count = Socket.receive(socket.descriptor, into: &scratch) else { continue }
                guard count > 0 else {
                    machine.closed()
                    return
                }
                parser.append(scratch[0..<count])
                machine.bytesReceived(at: .now)
            }
        }
    }

    /// Calls the handler and writes its response; whether the connection stays open for another request.
    private func respond(to parsed: HTTPRequestParser.ParsedRequest) -> Bool {
        var request = parsed.request
        request.peerAddress = peerAddress
        let response = handler(request)
        let close = parsed.closeAfterResponse || wake.isSignalled
        let isHead = request.method == "HEAD"
        switch response.body {
        case .bytes(let body):
            var bytes = ResponseHead.serialize(
                status: response.status, headers: response.headers, defaults: configuration.defaultHeaders,
                framing: .length(body.count), close: close)
            if !isHead && !response.status.forbidsBody { bytes += body }
            return send(bytes) && !close && !wake.isSignalled
        case .eventStream(let produce):
            let head = ResponseHead.serialize(
                status: response.status, headers: response.headers, defaults: configuration.defaultHeaders,
                framing: .untilClose, close: true)
            guard send(head), !isHead else { return false }
            let stream = HTTPEventStream(socket: socket, wake: wake, writeTimeout: configuration.writeTimeout)
            produce(stream)
            stream.finish()
            return false
        }
    }

    private func send(_ bytes: [UInt8]) -> Bool {
        Socket.sendAll(socket.descriptor, bytes, deadline: .now.advanced(by: configuration.writeTimeout))
    }

    /// Answers with an error and closes gracefully: the write side is shut, then what the client still sends is
    /// read and dropped for a moment, so that closing with unread bytes does not reset the connection before the
    /// client has read the answer.
    private func refuse(_ status: HTTPStatus, _ message: String) {
        guard send(ResponseHead.errorResponse(status, message: message, defaults: configuration.defaultHeaders))
        else { return }
        Self.lingeringClose(socket.descriptor, wake: wake, within: min(configuration.readTimeout, .seconds(1)))
    }

    /// Shuts the write side, then drains the read side until the client closes, `within` passes, or 1 MiB.
    static func lingeringClose(_ descriptor: Int32, wake: WakePipe, within: Duration) {
        Socket.shutdownWrite(descriptor)
        let deadline = ContinuousClock.now.advanced(by: within)
        var scratch = [UInt8](repeating: 0, count: 16 * 1024)
        var drained = 0
        while drained < 1 << 20, Socket.waitReadable(descriptor, wake: wake, deadline: deadline) == .readable {
            guard let count = Socket.receive(descriptor, into: &scratch) else { continue }
            guard count > 0 else { return }
            drained += count
        }
    }
}
