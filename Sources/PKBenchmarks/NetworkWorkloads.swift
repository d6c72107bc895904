import Foundation
import PKNetwork

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

// W14 and W15: PKNetwork against plain URLSession, both talking to PKNetworkTests' loopback python3 server
// (Tests/PKNetworkTests/Fixtures/test_server.py), started here on an ephemeral port of 127.0.0.1.

/// The loopback HTTP server for the network rows; `nil` (with a message) when python3 cannot start it.
final class BenchmarkServer: Sendable {
    let port: Int
    private let process: Process
    private let stdin: Pipe

    init?() {
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
            .deletingLastPathComponent().appendingPathComponent("Tests/PKNetworkTests/Fixtures/test_server.py")
        setenv("no_proxy", "127.0.0.1,localhost", 1)
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/usr/bin/env")
        process.arguments = ["python3", script.path]
        let stdin = Pipe()
        let stdout = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        guard (try? process.run()) != nil else { return nil }
        var line = Data()
        while !line.contains(UInt8(ascii: "\n")) {
            let chunk = stdout.fileHandleForReading.availableData
            if chunk.isEmpty { break }
            line.append(chunk)
        }
        let text = String(decoding: line, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        guard text.hasPrefix("ready "), let port = Int(text.dropFirst(6)) else {
            process.terminate()
            return nil
        }
        self.port = port
        self.process = process
        self.stdin = stdin
    }

    func request(_ path: String) -> URLRequest {
        URLRequest(url: URL(string: "http://127.0.0.1:\(port)\(path)")!)
    }
}

/// A session both contenders share, allowing `width` connections to the server.
func benchmarkSession(width: Int) -> ManagedNetworkSession {
    let configuration = URLSessionConfiguration.ephemeral
    configuration.httpMaximumConnectionsPerHost = width
    return ManagedNetworkSession(configuration: configuration)
}

/// `count` GETs through NetworkDataProcedure on a ProcedureQueue of width `width`.
func networkDataProcedures(_ count: Int, width: Int, server: BenchmarkServer, session: ManagedNetworkSession) {
    let queue = ProcedureQueue(maxConcurrentOperationCount: width)
    let request = server.request("/text")
    queue.add(procedures: (0..<count).map { _ in NetworkDataProcedure(session: session, request: request) })
    queue.waitUntilAllOperationsAreFinished()
}

/// `count` GETs through URLSession data tasks, `width` in flight at once.
func urlSessionDataTasks(_ count: Int, width: Int, server: BenchmarkServer, session: ManagedNetworkSession) {
    let slots = DispatchSemaphore(value: width)
    let group = DispatchGroup()
    let request = server.request("/text")
    for _ in 0..<count {
        slots.wait()
        group.enter()
        session.session.dataTask(with: request) { _, _, _ in
            slots.signal()
            group.leave()
        }.resume()
    }
    group.wait()
}

/// One download of `size` bytes through NetworkDownloadProcedure; the file is deleted afterwards.
func networkDownloadProcedure(size: Int, server: BenchmarkServer, session: ManagedNetworkSession) {
    let queue = ProcedureQueue()
    let download = NetworkDownloadProcedure(session: session, request: server.request("/bytes?size=\(size)"))
    queue.add(procedure: download)
    queue.waitUntilAllOperationsAreFinished()
    if let file = download.output.success?.payload { try? FileManager.default.removeItem(at: file) }
}

/// One download of `size` bytes through a URLSession download task; the file is deleted afterwards (Linux keeps
/// it otherwise).
func urlSessionDownload(size: Int, server: BenchmarkServer, session: ManagedNetworkSession) {
    let done = DispatchSemaphore(value: 0)
    session.session.downloadTask(with: server.request("/bytes?size=\(size)")) { location, _, _ in
        if let location { try? FileManager.default.removeItem(at: location) }
        done.signal()
    }.resume()
    done.wait()
}
