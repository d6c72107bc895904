import Foundation
import PKCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Runs a ``ManagedNetworkSession``'s downloads as data tasks driven by this delegate, writing each body into a file
/// PKNetwork owns, so that nothing is left behind on any outcome.
///
/// FoundationNetworking's download tasks create `<UUID>.tmp` in the temporary directory when a transfer starts and
/// never delete it when the transfer fails or is cancelled (nor tell anyone its name): one run of the randomized
/// fault suite left 63. Here the file is created when the response arrives, deleted when the transfer
/// fails, and, on success, handed to the completion handler and deleted after it returns unless the handler moved it
/// (the contract of ``NetworkSession/downloadTask(with:completionHandler:)``).
///
/// Every callback runs on the session's delegate queue, which is serial: one download's writes are in order, and
/// the completion handler is called there, as `URLSession` calls its own. `downloads` (a leaf lock) guards the table;
/// file operations and the completion handler run outside it.
final class ManagedDownloadDelegate: NSObject, URLSessionDataDelegate, Sendable {

    /// The downloads in flight, by task identifier.
    private let downloads = PKMutex<[Int: ManagedDownload]>([:])
    /// Where the files are made.
    let directory: URL

    init(directory: URL) {
        self.directory = directory
    }

    /// Records `task` (not yet resumed) as a download that calls `completion` once.
    func register(
        _ task: URLSessionTask, completion: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) {
        let file = directory.appendingPathComponent("PKNetwork-\(UUID().uuidString).partial")
        downloads.withLock { $0[task.taskIdentifier] = ManagedDownload(file: file, completion: completion) }
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping @Sendable (URLSession.ResponseDisposition) -> Void
    ) {
        // A delegate-driven task waits for this answer before it reads the body.
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        let id = dataTask.taskIdentifier
        guard let download = downloads.withLock({ $0[id] }), download.writeError == nil else { return }
        do {
            let handle = try download.handle ?? open(download.file)
            if download.handle == nil { downloads.withLock { $0[id]?.handle = handle } }
            try handle.write(contentsOf: data)
        } catch {
            downloads.withLock { $0[id]?.writeError = error }
            dataTask.cancel()  // a task of a session without a URL cache: safe (see CacheFreeSessionTask)
        }
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let download = downloads.withLock({ $0.removeValue(forKey: task.taskIdentifier) }) else { return }
        try? download.handle?.close()
        var failure = download.writeError ?? error
        // An empty body never opened the file: the caller still gets one.
        if failure == nil, download.handle == nil,
            !FileManager.default.createFile(atPath: download.file.path, contents: nil)
        {
            failure = CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: download.file.path])
        }
        if let failure {
            try? FileManager.default.removeItem(at: download.file)
            download.completion(nil, nil, failure)
            return
        }
        download.completion(download.file, task.response, nil)
        // The handler had its chance to move the file: whatever is left is nobody's.
        try? FileManager.default.removeItem(at: download.file)
    }

    private func open(_ file: URL) throws -> FileHandle {
        guard FileManager.default.createFile(atPath: file.path, contents: nil) else {
            throw CocoaError(.fileWriteUnknown, userInfo: [NSFilePathErrorKey: file.path])
        }
        return try FileHandle(forWritingTo: file)
    }
}
