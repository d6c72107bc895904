import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A tiny HTTP/1.1 server on 127.0.0.1, so that the example runs without a network: `/hello` answers 200, and
/// `/flaky` answers 503 (with `Retry-After: 1`) to its first request and 200 afterwards. One connection at a time,
/// `Connection: close`: enough for a demonstration, not a server to copy.
final class LoopbackServer: Sendable {
    let port: Int
    private let socketDescriptor: Int32
    private let flakyRequests = Mutex(0)

    init() throws {
        let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard fd >= 0 else { throw POSIXError(.EIO) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) == 0 && listen(fd, 16) == 0 }
        }
        guard bound else { throw POSIXError(.EADDRINUSE) }
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
        }
        socketDescriptor = fd
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread { [self] in serve() }.start()
    }

    private func serve() {
        while true {
            let client = accept(socketDescriptor, nil, nil)
            guard client >= 0 else { return }
            var request = [UInt8]()
            var buffer = [UInt8](repeating: 0, count: 4096)
            while !request.ends(with: Array("\r\n\r\n".utf8)) {
                let count = read(client, &buffer, buffer.count)
                if count <= 0 { break }
                request += buffer[0..<count]
            }
            let line = String(decoding: request.prefix { $0 != 13 }, as: UTF8.self)
            let path = line.split(separator: " ").dropFirst().first.map(String.init) ?? "/"
            let response = respond(to: path)
            _ = response.withUnsafeBytes { write(client, $0.baseAddress, $0.count) }
            close(client)
        }
    }

    private func respond(to path: String) -> [UInt8] {
        var status = "200 OK"
        var body = "Hello from the example's loopback server\n"
        var extra = ""
        if path == "/flaky" {
            let count = flakyRequests.withLock { count in
                count += 1
                return count
            }
            if count == 1 {
                status = "503 Service Unavailable"
                body = "try again\n"
                extra = "Retry-After: 1\r\n"
            } else {
                body = "flaky answered on request \(count)\n"
            }
        } else if path != "/hello" {
            status = "404 Not Found"
            body = "no such page\n"
        }
        let head = "HTTP/1.1 \(status)\r\nContent-Length: \(body.utf8.count)\r\n\(extra)Connection: close\r\n\r\n"
        return Array((head + body).utf8)
    }
}

extension Array where Element == UInt8 {
    fileprivate func ends(with suffix: [UInt8]) -> Bool {
        count >= suffix.count && Array(self[(count - suffix.count)...]) == suffix
    }
}
