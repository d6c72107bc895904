import Foundation
import Testing

@testable import PKHTTPServer

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A response as the test client read it.
struct TestResponse {
    var status: Int
    var headers: HTTPHeaders
    var body: [UInt8]
    var text: String { String(decoding: body, as: UTF8.self) }
}

/// A blocking TCP client to 127.0.0.1, for the server's tests: sends raw bytes and reads responses. Every read gives
/// up after `timeout` (a generous bound, never an assertion about speed).
final class TestClient {

    let descriptor: Int32
    private var pending: [UInt8] = []
    private(set) var closedByPeer = false

    init(port: UInt16, ipv6: Bool = false, timeout: Duration = .seconds(20)) throws {
        let family = ipv6 ? AF_INET6 : AF_INET
        #if os(Linux)
            descriptor = socket(family, Int32(SOCK_STREAM.rawValue), 0)
        #else
            descriptor = socket(family, SOCK_STREAM, 0)
        #endif
        guard descriptor >= 0 else { throw POSIXError(.EMFILE) }
        #if canImport(Darwin)
            var on: Int32 = 1
            setsockopt(descriptor, SOL_SOCKET, SO_NOSIGPIPE, &on, socklen_t(MemoryLayout<Int32>.size))
        #endif
        var limit = timeval(tv_sec: Int(timeout.components.seconds), tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &limit, socklen_t(MemoryLayout<timeval>.size))
        let connected: Int32
        if ipv6 {
            var address = sockaddr_in6()
            address.sin6_family = sa_family_t(AF_INET6)
            address.sin6_port = port.bigEndian
            inet_pton(AF_INET6, "::1", &address.sin6_addr)
            connected = Self.connect(descriptor, &address)
        } else {
            var address = sockaddr_in()
            address.sin_family = sa_family_t(AF_INET)
            address.sin_port = port.bigEndian
            address.sin_addr.s_addr = inet_addr("127.0.0.1")
            connected = Self.connect(descriptor, &address)
        }
        guard connected == 0 else {
            let code = errno
            close(descriptor)
            throw POSIXError(POSIXErrorCode(rawValue: code) ?? .ECONNREFUSED)
        }
    }

    deinit {
        close(descriptor)
    }

    private static func connect<Address>(_ descriptor: Int32, _ address: inout Address) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                systemConnect(descriptor, $0, socklen_t(MemoryLayout<Address>.size))
            }
        }
    }

    /// Sends every byte; `false` when the server closed the connection.
    @discardableResult
    func send(_ bytes: [UInt8]) -> Bool {
        #if os(Linux)
            let flags = Int32(MSG_NOSIGNAL)
        #else
            let flags: Int32 = 0
        #endif
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                systemSend(descriptor, $0.baseAddress! + offset, $0.count - offset, flags)
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { return false }
            offset += sent
        }
        return true
    }

    /// Sends a string's UTF-8.
    @discardableResult
    func send(_ text: String) -> Bool {
        send(Array(text.utf8))
    }

    /// Shuts the sending side: the server reads the end of the stream.
    func finishSending() {
        shutdown(descriptor, Int32(SHUT_WR))
    }

    /// Reads more bytes into `pending`; `false` at the end of the stream, on an error or at the timeout.
    private func fill() -> Bool {
        var chunk = [UInt8](repeating: 0, count: 16 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else {
                closedByPeer = count == 0 || errno == ECONNRESET
                return false
            }
            pending += chunk[0..<count]
            return true
        }
    }

    /// The next response's head and its `Content-Length` body (or, without one, everything up to the close);
    /// `nil` when the connection ends first. `bodyless`: a response to HEAD.
    func readResponse(bodyless: Bool = false) -> TestResponse? {
        var headEnd: Int?
        while true {
            if let range = findHeadEnd() {
                headEnd = range
                break
            }
            guard fill() else { return nil }
        }
        guard let headEnd else { return nil }
        let head = String(decoding: pending[0..<headEnd], as: UTF8.self)
        pending.removeFirst(headEnd + 4)
        var lines = head.components(separatedBy: "\r\n")
        let statusLine = lines.removeFirst().split(separator: " ")
        guard statusLine.count >= 2, let status = Int(statusLine[1]) else { return nil }
        var headers = HTTPHeaders()
        for line in lines {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.add(
                String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters(in: .whitespaces))
        }
        if status == 100 { return readResponse(bodyless: bodyless) }
        if bodyless || status == 204 || status == 304 {
            return TestResponse(status: status, headers: headers, body: [])
        }
        if let lengthText = headers["Content-Length"], let length = Int(lengthText) {
            while pending.count < length {
                guard fill() else { return nil }
            }
            let body = Array(pending[0..<length])
            pending.removeFirst(length)
            return TestResponse(status: status, headers: headers, body: body)
        }
        while fill() {}
        defer { pending = [] }
        return TestResponse(status: status, headers: headers, body: pending)
    }

    /// Reads until `predicate` holds for what arrived after the last response, or the connection ends; returns
    /// what arrived.
    func readUntil(_ predicate: ([UInt8]) -> Bool) -> [UInt8] {
        while !predicate(pending) {
            guard fill() else { break }
        }
        return pending
    }

    /// Reads until the server closes the connection (or the timeout); whether it did close it.
    func waitForClose() -> Bool {
        while fill() {}
        return closedByPeer
    }

    private func findHeadEnd() -> Int? {
        guard pending.count >= 4 else { return nil }
        for index in 0...(pending.count - 4)
        where pending[index] == 13 && pending[index + 1] == 10 && pending[index + 2] == 13 && pending[index + 3] == 10 {
            return index
        }
        return nil
    }
}

/// `send(2)`, which `TestClient.send` hides inside the class.
private func systemSend(_ descriptor: Int32, _ bytes: UnsafeRawPointer, _ count: Int, _ flags: Int32) -> Int {
    #if canImport(Glibc)
        Glibc.send(descriptor, bytes, count, flags)
    #else
        Darwin.send(descriptor, bytes, count, flags)
    #endif
}

/// `connect(2)`, which `TestClient.connect` hides inside the class.
private func systemConnect(_ descriptor: Int32, _ address: UnsafePointer<sockaddr>, _ length: socklen_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.connect(descriptor, address, length)
    #else
        Darwin.connect(descriptor, address, length)
    #endif
}

/// A started server with the tests' configuration (changed by `configure`) and its port; the caller shuts it down.
func startedServer(
    _ configure: (inout HTTPServer.Configuration) -> Void = { _ in },
    handler: @escaping HTTPServer.Handler = { request in .text("hello \(request.path)") }
) throws -> (server: HTTPServer, port: UInt16) {
    var configuration = HTTPServer.Configuration()
    // Long enough that a loaded machine never cuts off a test's own prompt client; the tests of the timeouts set
    // 200 ms.
    configuration.readTimeout = .seconds(2)
    configuration.idleTimeout = .seconds(30)
    configuration.writeTimeout = .seconds(5)
    configuration.shutdownTimeout = .seconds(10)
    configure(&configuration)
    let server = HTTPServer(configuration: configuration, handler: handler)
    try server.start()
    return (server, try #require(server.port))
}

/// How many of this process's descriptors are TCP sockets on local port `port` (the server's listening socket and
/// the connections it accepted), or `nil` where /proc is not there. Unlike a count of every descriptor, other
/// suites running at the same time (their connections, files and child processes) do not change it.
func serverSocketCount(port: UInt16) -> Int? {
    #if os(Linux)
        var inodes = Set<String>()
        let portHex = String(format: ":%04X", port)
        for table in ["/proc/net/tcp", "/proc/net/tcp6"] {
            guard let text = try? String(contentsOfFile: table, encoding: .utf8) else { continue }
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ", omittingEmptySubsequences: true)
                // sl, local_address, rem_address, st, tx:rx, tr:when, retrnsmt, uid, timeout, inode
                guard fields.count > 9, fields[1].hasSuffix(portHex) else { continue }
                inodes.insert(String(fields[9]))
            }
        }
        guard let descriptors = try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd") else {
            return nil
        }
        return descriptors.filter { descriptor in
            guard
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/fd/\(descriptor)"),
                target.hasPrefix("socket:[")
            else { return false }
            return inodes.contains(String(target.dropFirst(8).dropLast()))
        }.count
    #else
        return nil
    #endif
}

/// A simple GET with a Host.
func get(_ path: String, _ extraHeaders: String = "") -> String {
    "GET \(path) HTTP/1.1\r\nHost: test\r\n\(extraHeaders)\r\n"
}
