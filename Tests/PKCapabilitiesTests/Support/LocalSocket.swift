#if canImport(Glibc)
    import Glibc
#endif

/// A TCP socket bound to 127.0.0.1 on a free port, for reachability tests; closed by ``close()``.
final class LocalSocket: Sendable {
    let descriptor: Int32
    let port: UInt16

    /// Binds a socket to 127.0.0.1 on a port the kernel picks; `listening` with `backlog` to accept connections.
    init(listening backlog: Int32?) throws {
        struct SocketError: Error {
            let call: String
            let code: Int32
        }
        let descriptor = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { throw SocketError(call: "socket", code: errno) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = 0
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(descriptor, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0 else {
            Glibc.close(descriptor)
            throw SocketError(call: "bind", code: errno)
        }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(descriptor, $0, &length) }
        }
        if let backlog, listen(descriptor, backlog) != 0 {
            Glibc.close(descriptor)
            throw SocketError(call: "listen", code: errno)
        }
        self.descriptor = descriptor
        port = UInt16(bigEndian: address.sin_port)
    }

    /// A port nothing listens on: bound, then closed again.
    static func closedPort() throws -> UInt16 {
        let socket = try LocalSocket(listening: nil)
        socket.close()
        return socket.port
    }

    /// Connects a blocking client socket to this one and leaves it open (to fill an accept queue); returns it.
    func connectClient() -> Int32 {
        let client = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        address.sin_port = port.bigEndian
        _ = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(client, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        return client
    }

    func close() {
        Glibc.close(descriptor)
    }
}
