#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// One reachability probe: resolve, then connect to each address in turn with a non-blocking socket and
/// `poll(2)`, within one overall deadline. Blocks the calling thread for at most about the timeout (resolving
/// can take longer when the resolver itself is slow: `getaddrinfo(3)` has no timeout).
enum TCPProbe {

    static func probe(host: String, port: UInt16, timeout: Duration) -> Capability.HostReachability.Status {
        let clock = ContinuousClock()
        // At most a day: a longer probe means nothing, and an instant advanced by a huge duration traps.
        let deadline = clock.now.advanced(by: min(timeout, .seconds(86_400)))
        var hints = addrinfo()
        hints.ai_family = AF_UNSPEC
        hints.ai_socktype = Int32(SOCK_STREAM.rawValue)
        // No AI_ADDRCONFIG: on a machine with only a loopback interface (a sandbox, a CI container) it would hide
        // 127.0.0.1 from "localhost".
        hints.ai_flags = AI_NUMERICSERV
        var list: UnsafeMutablePointer<addrinfo>?
        let resolved = getaddrinfo(host, String(port), &hints, &list)
        guard resolved == 0, let list else {
            return .unresolved(String(cString: gai_strerror(resolved)))
        }
        defer { freeaddrinfo(list) }

        var first: Capability.HostReachability.Status?
        var entry: UnsafeMutablePointer<addrinfo>? = list
        while let current = entry {
            entry = current.pointee.ai_next
            let remaining = clock.now.duration(to: deadline)
            guard remaining > .zero else {
                first = first ?? .timedOut
                break
            }
            let outcome = attempt(current.pointee, within: remaining)
            if case .reachable = outcome { return outcome }
            first = first ?? outcome
        }
        return first ?? .unreachable("no address")
    }

    private static func attempt(_ info: addrinfo, within remaining: Duration) -> Capability.HostReachability.Status {
        let descriptor = socket(
            info.ai_family, info.ai_socktype | Int32(SOCK_NONBLOCK.rawValue | SOCK_CLOEXEC.rawValue), info.ai_protocol)
        guard descriptor >= 0 else { return .unreachable("socket: \(systemErrorMessage(errno))") }
        defer { close(descriptor) }
        let address = describe(info)
        if connect(descriptor, info.ai_addr, info.ai_addrlen) == 0 { return .reachable(address: address) }
        let code = errno
        // EINTR: the connection goes on asynchronously, as with EINPROGRESS.
        guard code == EINPROGRESS || code == EINTR else { return failure(code) }

        let clock = ContinuousClock()
        let deadline = clock.now.advanced(by: remaining)
        while true {
            let left = clock.now.duration(to: deadline)
            guard left > .zero else { return .timedOut }
            let milliseconds = Int32(clamping: max(1, Int((left.inSeconds * 1000).rounded(.up))))
            var entry = pollfd(fd: descriptor, events: Int16(POLLOUT), revents: 0)
            let ready = poll(&entry, 1, milliseconds)
            if ready < 0 {
                if errno == EINTR { continue }
                return .unreachable("poll: \(systemErrorMessage(errno))")
            }
            if ready == 0 { continue }
            var code: Int32 = 0
            var length = socklen_t(MemoryLayout<Int32>.size)
            guard getsockopt(descriptor, SOL_SOCKET, SO_ERROR, &code, &length) == 0 else {
                return .unreachable("getsockopt: \(systemErrorMessage(errno))")
            }
            return code == 0 ? .reachable(address: address) : failure(code)
        }
    }

    private static func failure(_ code: Int32) -> Capability.HostReachability.Status {
        switch code {
        case ECONNREFUSED: .refused
        case ETIMEDOUT: .timedOut
        default: .unreachable(systemErrorMessage(code))
        }
    }

    /// `127.0.0.1:8080` or `[::1]:8080`.
    private static func describe(_ info: addrinfo) -> String {
        var host = [CChar](repeating: 0, count: Int(NI_MAXHOST))
        var service = [CChar](repeating: 0, count: Int(NI_MAXSERV))
        let status = getnameinfo(
            info.ai_addr, info.ai_addrlen, &host, socklen_t(host.count), &service, socklen_t(service.count),
            NI_NUMERICHOST | NI_NUMERICSERV)
        guard status == 0 else { return "?" }
        let name = string(fromNullTerminated: host)
        let port = string(fromNullTerminated: service)
        return info.ai_family == AF_INET6 ? "[\(name)]:\(port)" : "\(name):\(port)"
    }
}

/// The characters of a NUL-terminated buffer, up to the NUL.
private func string(fromNullTerminated buffer: [CChar]) -> String {
    let bytes = buffer.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }
    return String(decoding: bytes, as: UTF8.self)
}
