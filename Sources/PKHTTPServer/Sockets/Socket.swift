#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls the server makes on sockets, wrapped: every descriptor non-blocking and close-on-exec, every
/// wait a `poll(2)` with a deadline, and no `SIGPIPE` (`MSG_NOSIGNAL` on Linux, `SO_NOSIGPIPE` on Darwin).
enum Socket {

    /// What a wait for input ended with.
    enum WaitOutcome {
        /// The socket is readable (bytes, end of stream or an error to read).
        case readable
        /// The server is shutting down.
        case woken
        /// The deadline passed.
        case timedOut
    }

    /// The listening socket bound to `host`:`port`, and the port it got.
    static func listen(host: String, port: UInt16, backlog: Int) throws(HTTPServerError) -> (Int32, UInt16) {
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        #if os(Linux)
            hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        #else
            hints.ai_socktype = SOCK_STREAM
        #endif
        hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            throw HTTPServerError(
                .invalidAddress, "cannot resolve '\(host)': \(String(cString: gai_strerror(resolved)))")
        }
        defer { freeaddrinfo(list) }
        let info = list.pointee
        let descriptor = socket(info.ai_family, info.ai_socktype, info.ai_protocol)
        guard descriptor >= 0 else { throw HTTPServerError(.socket, systemError: errno, "socket") }
        configure(descriptor)
        var on: Int32 = 1
        _ = setsockopt(descriptor, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if info.ai_family == AF_INET6 {
            _ = setsockopt(descriptor, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        guard bind(descriptor, info.ai_addr, info.ai_addrlen) == 0 else {
            let code = errno
            close(descriptor)
            throw HTTPServerError(.bind, systemError: code, "bind \(host):\(port)")
        }
        guard systemListen(descriptor, Int32(clamping: backlog)) == 0 else {
            let code = errno
            close(descriptor)
            throw HTTPServerError(.listen, systemError: code, "listen")
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutableBytes(of: &storage) { raw in
            getsockname(descriptor, raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), &length)
        }
        return (descriptor, address(storage).port)
    }

    /// A connection accepted on `listener` and its peer's address, `nil` when none is waiting; `errno` tells why.
    static func accept(_ listener: Int32) -> (Int32, String)? {
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        let descriptor = withUnsafeMutableBytes(of: &storage) { raw in
            let address = raw.baseAddress!.assumingMemoryBound(to: sockaddr.self)
            return systemAccept(listener, address, &length)
        }
        guard descriptor >= 0 else { return nil }
        configure(descriptor)
        var on: Int32 = 1
        _ = setsockopt(descriptor, Int32(IPPROTO_TCP), TCP_NODELAY, &on, socklen_t(MemoryLayout<Int32>.size))
        let peer = address(storage)
        return (descriptor, peer.family == AF_INET6 ? "[\(peer.host)]:\(peer.port)" : "\(peer.host):\(peer.port)")
    }

    /// Non-blocking, close-on-exec, and (on Darwin) no `SIGPIPE`.
    private static func configure(_ descriptor: Int32) {
        _ = fcntl(descriptor, F_SETFD, FD_CLOEXEC)
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        #if canImport(Darwin)
            var on: Int32 = 1
            _ = setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
    }

    private static func address(_ storage: sockaddr_storage) -> (family: Int32, host: String, port: UInt16) {
        var storage = storage
        let family = Int32(storage.ss_family)
        var text = [CChar](repeating: 0, count: Int(INET6_ADDRSTRLEN) + 1)
        return withUnsafeBytes(of: &storage) { raw in
            if family == AF_INET6 {
                var address = raw.load(as: sockaddr_in6.self)
                inet_ntop(AF_INET6, &address.sin6_addr, &text, socklen_t(text.count))
                return (AF_INET6, string(text), UInt16(bigEndian: address.sin6_port))
            }
            var address = raw.load(as: sockaddr_in.self)
            inet_ntop(AF_INET, &address.sin_addr, &text, socklen_t(text.count))
            return (AF_INET, string(text), UInt16(bigEndian: address.sin_port))
        }
    }

    private static func string(_ text: [CChar]) -> String {
        String(decoding: text.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    /// Shuts the sending side down: the peer reads the end of the stream after what was sent.
    static func shutdownWrite(_ descriptor: Int32) {
        _ = shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Waits until `descriptor` is readable, `wake` is signalled, or `deadline` passes (`nil`: no deadline).
    static func waitReadable(
        _ descriptor: Int32, wake: WakePipe, deadline: ContinuousClock.Instant?
    ) -> WaitOutcome {
        while true {
            var entries = [
                pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0),
                pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0),
            ]
            let ready = poll(&entries, nfds_t(entries.count), timeout(until: deadline))
            if ready < 0 {
                if errno == EINTR { continue }
                return .woken
            }
            if entries[1].revents != 0 { return .woken }
            if entries[0].revents != 0 { return .readable }
            if let deadline, ContinuousClock.now >= deadline { return .timedOut }
        }
    }

    /// Receives into `buffer`: the count (0 at end of stream), `nil` when nothing is waiting, -1 on an error.
    static func receive(_ descriptor: Int32, into buffer: inout [UInt8]) -> Int? {
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count >= 0 { return count }
            switch errno {
            case EINTR: continue
            case EAGAIN, EWOULDBLOCK: return nil
            default: return -1
            }
        }
    }

    /// Sends every byte before `deadline`; `false` when the peer is gone, an error occurred or time ran out.
    static func sendAll(_ descriptor: Int32, _ bytes: [UInt8], deadline: ContinuousClock.Instant) -> Bool {
        #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes { raw in
                send(descriptor, raw.baseAddress! + offset, raw.count - offset, flags)
            }
            if sent > 0 {
                offset += sent
                continue
            }
            guard sent < 0 else { return false }
            switch errno {
            case EINTR:
                continue
            case EAGAIN, EWOULDBLOCK:
                var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
                let ready = poll(&entry, 1, timeout(until: deadline))
                if ready == 0 && ContinuousClock.now >= deadline { return false }
            default:
                return false
            }
        }
        return true
    }

    /// The milliseconds until `deadline` for `poll(2)`, rounded up; -1 (forever) when there is none.
    private static func timeout(until deadline: ContinuousClock.Instant?) -> Int32 {
        guard let deadline else { return -1 }
        let left = ContinuousClock.now.duration(to: deadline)
        guard left > .zero else { return 0 }
        let (seconds, attoseconds) = left.components
        let milliseconds = seconds * 1000 + (attoseconds + 999_999_999_999_999) / 1_000_000_000_000_000
        return Int32(clamping: milliseconds)
    }
}

/// `accept(2)`, which `Socket.accept` hides inside the enum. (The accepted socket is made non-blocking and
/// close-on-exec just after: Glibc's module does not export `accept4`.)
private func systemAccept(
    _ listener: Int32, _ address: UnsafeMutablePointer<sockaddr>, _ length: UnsafeMutablePointer<socklen_t>
) -> Int32 {
    #if canImport(Glibc)
        Glibc.accept(listener, address, length)
    #elseif canImport(Musl)
        Musl.accept(listener, address, length)
    #else
        Darwin.accept(listener, address, length)
    #endif
}

/// `listen(2)`, which `Socket.listen` hides inside the enum.
private func systemListen(_ descriptor: Int32, _ backlog: Int32) -> Int32 {
    #if canImport(Glibc)
        Glibc.listen(descriptor, backlog)
    #elseif canImport(Musl)
        Musl.listen(descriptor, backlog)
    #else
        Darwin.listen(descriptor, backlog)
    #endif
}
