import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A Unix datagram socket bound to a fresh address, standing in for systemd's notification socket.
final class DatagramListener: Sendable {
    /// The address as `NOTIFY_SOCKET` names it: a path, or `@name` for an abstract socket.
    let address: String
    private let descriptor: Int32
    private let path: String?

    /// Binds a new socket to a fresh path in the temporary directory, or to a fresh abstract name.
    init(abstract: Bool = false) throws {
        let unique = "pk-notify-\(getpid())-\(UInt32.random(in: 0...UInt32.max))"
        path = abstract ? nil : "/tmp/\(unique).sock"
        address = path ?? "@\(unique)"
        #if canImport(Glibc)
            let socketType = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let socketType = SOCK_DGRAM
        #endif
        descriptor = socket(AF_UNIX, socketType, 0)
        guard descriptor >= 0 else { throw POSIXFailure(operation: "socket", errorNumber: errno) }

        var socketAddress = sockaddr_un()
        socketAddress.sun_family = sa_family_t(AF_UNIX)
        var bytes = Array(address.utf8)
        if abstract { bytes[0] = 0 }
        withUnsafeMutableBytes(of: &socketAddress.sun_path) { $0.copyBytes(from: bytes) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = socklen_t(pathOffset + bytes.count + (abstract ? 0 : 1))
        let bound = withUnsafePointer(to: &socketAddress) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(descriptor, $0, length) }
        }
        guard bound == 0 else {
            let error = errno
            close(descriptor)
            throw POSIXFailure(operation: "bind", errorNumber: error)
        }
    }

    /// The next datagram as text, or `nil` when none arrives within `timeout` seconds.
    func receive(timeout: TimeInterval) -> String? {
        var limit = timeval()
        limit.tv_sec = .init(timeout)
        limit.tv_usec = .init((timeout - timeout.rounded(.down)) * 1e6)
        _ = setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, 0)
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    /// The datagram already waiting, if any, without waiting for one.
    func receiveIfAny() -> String? {
        var buffer = [UInt8](repeating: 0, count: 4096)
        let count = recv(descriptor, &buffer, buffer.count, Int32(MSG_DONTWAIT))
        guard count >= 0 else { return nil }
        return String(decoding: buffer[..<count], as: UTF8.self)
    }

    deinit {
        close(descriptor)
        if let path { unlink(path) }
    }
}

/// A failed system call in test support.
struct POSIXFailure: Error, CustomStringConvertible {
    let operation: String
    let errorNumber: Int32
    var description: String { "\(operation) failed: \(String(cString: strerror(errorNumber)))" }
}
