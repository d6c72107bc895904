import Foundation
import PKNetwork
import PKTesting
import Testing

/// One ephemeral session for the tests that need no special one.
let testSession = ManagedNetworkSession(configuration: .ephemeral)

/// Adds `procedures` to a new queue and suspends until they have all finished; records an issue (instead of
/// hanging) after the hang timeout.
@discardableResult
func run(_ procedures: Procedure..., sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    ProcedureQueue().add(procedures: procedures)
    return await finished(procedures, sourceLocation: sourceLocation)
}

/// How long a test waits for a procedure to start executing: longer than the hang timeout, because under the full
/// suite on two cores a queue has been seen to start a procedure only after 20 s. The slow routes those tests use
/// take longer still, so the request cannot complete before the test cancels it.
let startTimeout: TimeInterval = 60

/// Suspends until `procedures` have all finished; records an issue (instead of hanging) after the hang timeout.
@discardableResult
func finished(_ procedures: [Procedure], sourceLocation: SourceLocation = #_sourceLocation) async -> Bool {
    let done = await waitForFinish(procedures, timeout: hangTimeout)
    if !done {
        let names = procedures.filter { !$0.isFinished }.map(\.procedureName)
        Issue.record("timed out waiting for \(names) to finish", sourceLocation: sourceLocation)
    }
    return done
}

/// Suspends until `condition` holds, polling; records an issue (instead of hanging) after the hang timeout.
@discardableResult
func eventually(
    _ what: String, timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation,
    _ condition: @Sendable () -> Bool
) async -> Bool {
    let deadline = Date().addingTimeInterval(timeout)
    while !condition() {
        if Date() >= deadline {
            Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation)
            return false
        }
        try? await Task.sleep(for: .milliseconds(2))
    }
    return true
}

/// A thread-safe box for values callbacks record.
final class Box<Value: Sendable>: Sendable {
    private let storage: PKMutex<Value>
    init(_ value: Value) { storage = PKMutex(value) }
    var value: Value { storage.withLock { $0 } }
    func update<R: Sendable>(_ body: @Sendable (inout Value) -> R) -> R { storage.withLock { body(&$0) } }
}

/// The `URLError` code of `error`, if it is a `URLError`.
func urlErrorCode(_ error: (any Error)?) -> URLError.Code? {
    (error as? URLError)?.code
}

/// A port on 127.0.0.1 that nothing listens on: bound, then closed.
func closedPort() -> Int {
    let fd = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
    defer { close(fd) }
    var address = sockaddr_in()
    address.sin_family = sa_family_t(AF_INET)
    address.sin_addr.s_addr = inet_addr("127.0.0.1")
    address.sin_port = 0
    var length = socklen_t(MemoryLayout<sockaddr_in>.size)
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { bind(fd, $0, length) }
    }
    _ = withUnsafeMutablePointer(to: &address) {
        $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(fd, $0, &length) }
    }
    return Int(UInt16(bigEndian: address.sin_port))
}

/// A session that records the temporary files URLSession hands to download completion handlers, passing everything
/// else to a real session: a spy, not a fake.
final class RecordingSession: NetworkSession {
    let base: any NetworkSession
    let locations = Box<[URL]>([])

    init(base: any NetworkSession) { self.base = base }

    func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask {
        base.dataTask(with: request, completionHandler: completionHandler)
    }

    func downloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask {
        base.downloadTask(with: request) { [locations] url, response, error in
            if let url { locations.update { $0.append(url) } }
            completionHandler(url, response, error)
        }
    }

    func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask {
        base.uploadTask(with: request, from: bodyData, completionHandler: completionHandler)
    }
}

/// A new empty directory under the temporary directory.
func makeScratchDirectory() -> URL {
    let url = FileManager.default.temporaryDirectory.appendingPathComponent("PKNetworkTests-\(UUID().uuidString)")
    try? FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    return url
}

/// The names of the files in `directory`.
func files(in directory: URL) -> [String] {
    (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
}
