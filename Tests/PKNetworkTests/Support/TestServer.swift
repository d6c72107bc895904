import Foundation
import PKNetwork
import Testing

/// The loopback HTTP server of `Fixtures/test_server.py`, started once for the test process on an ephemeral port of
/// 127.0.0.1. It exits when the test process does (its stdin, a pipe from this process, reaches EOF).
final class TestServer: Sendable {

    /// The server for this process; a failure to start it fails the tests that use it, with the reason.
    static let shared: Result<TestServer, TestServerError> = Result { try TestServer() }.mapError {
        $0 as? TestServerError ?? TestServerError(reason: "\($0)")
    }

    /// A second server, for the randomized fault suite only: the connections to it are that suite's alone, so it
    /// can check that none stays open while other suites run in parallel.
    static let isolated: Result<TestServer, TestServerError> = Result { try TestServer() }.mapError {
        $0 as? TestServerError ?? TestServerError(reason: "\($0)")
    }

    /// The server, or an issue recorded and `nil`.
    static func start(sourceLocation: SourceLocation = #_sourceLocation) -> TestServer? {
        resolve(shared, sourceLocation: sourceLocation)
    }

    /// ``isolated``, or an issue recorded and `nil`.
    static func startIsolated(sourceLocation: SourceLocation = #_sourceLocation) -> TestServer? {
        resolve(isolated, sourceLocation: sourceLocation)
    }

    private static func resolve(
        _ result: Result<TestServer, TestServerError>, sourceLocation: SourceLocation
    ) -> TestServer? {
        switch result {
        case .success(let server): return server
        case .failure(let error):
            Issue.record("could not start the test HTTP server: \(error.reason)", sourceLocation: sourceLocation)
            return nil
        }
    }

    let port: Int
    private let process: Process
    private let stdin: Pipe

    private init() throws {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .appendingPathComponent("Fixtures/test_server.py")
        // libcurl honours http_proxy: keep loopback requests off any proxy.
        setenv("no_proxy", "127.0.0.1,localhost", 1)
        setenv("NO_PROXY", "127.0.0.1,localhost", 1)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        do {
            try process.run()
        } catch {
            throw TestServerError(reason: "python3 did not start (\(error)); PKNetworkTests need python3 on PATH")
        }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("ready "), let port = Int(text.dropFirst(6)) else {
            process.terminate()
            throw TestServerError(reason: "the server said \(text.debugDescription) instead of \"ready <port>\"")
        }
        self.port = port
        self.process = process
        self.stdin = stdin
    }

    /// `http://127.0.0.1:<port><path>`.
    func url(_ path: String) -> URL {
        URL(string: "http://127.0.0.1:\(port)\(path)")!
    }

    /// A GET request for `path`.
    func request(_ path: String, method: String = "GET", timeout: TimeInterval = 30) -> URLRequest {
        var request = URLRequest(url: url(path), timeoutInterval: timeout)
        request.httpMethod = method
        return request
    }
}

/// Why the test server did not start.
struct TestServerError: Error, Sendable {
    let reason: String
}

/// A key no other test uses, for the server's per-key sequences.
func uniqueKey(_ label: String = #function) -> String {
    "\(label.filter(\.isLetter))-\(UUID().uuidString)"
}

/// The byte at `index` of the server's `/bytes` pattern.
func patternByte(at index: Int) -> UInt8 {
    UInt8((index * 31 + 7) % 251)
}

/// Whether the file holds exactly `size` bytes of the `/bytes` pattern, read in chunks (not all at once).
func fileHoldsPattern(_ url: URL, size: Int) -> Bool {
    guard let handle = try? FileHandle(forReadingFrom: url) else { return false }
    defer { try? handle.close() }
    var offset = 0
    while let chunk = try? handle.read(upToCount: 1 << 20), !chunk.isEmpty {
        for byte in chunk {
            guard byte == patternByte(at: offset) else { return false }
            offset += 1
        }
    }
    return offset == size
}
