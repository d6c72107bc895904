import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task of a `URLSession` that has no URL cache: what ``ManagedNetworkSession`` makes, and what ``URLSessionAdapter``
/// makes for a session without one. Such a task is cancelled with `URLSessionTask.cancel()` at any moment.
///
/// On Linux, cancelling a data or upload task of a session that has a `URLCache` may end the process
/// ("Trying to access a behaviour for a task that in not in the registry"): FoundationNetworking looks the cache up
/// on a background queue before it makes the task's protocol, and a cancel that lands meanwhile reports its failure
/// after the task has left the session's registry. Measured with plain `URLSession` against the loopback test server
/// (2,000 data tasks per process, each cancelled 0 to 600 µs after `resume()`): 12 of 20 processes crashed with the
/// `.ephemeral` configuration's in-memory cache, 0 of 20 with `urlCache = nil`, 0 of 20 for download tasks (which never
/// consult the cache), and 12 of 20 when the cancels were made on the session's delegate queue instead (serialising
/// with the completions does not help: the cancel races the cache lookup, not the completion). The procedures cancel
/// other `URLSessionDataTask`s differently (``NetworkTaskCancellation``).
final class CacheFreeSessionTask: NetworkDataTask, NetworkDownloadTask, NetworkUploadTask {
    // Sendable: `task` is immutable, and URLSessionTask's resume() and cancel() are thread-safe.

    /// The wrapped task.
    let task: URLSessionTask

    init(_ task: URLSessionTask) {
        self.task = task
    }

    func resume() { task.resume() }
    func cancel() { task.cancel() }
}
