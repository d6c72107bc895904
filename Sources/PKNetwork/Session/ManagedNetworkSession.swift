import Foundation
import PKCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A `URLSession` owned by PKNetwork: tasks asked for after it is invalidated fail with
/// ``NetworkSessionError/invalidated`` instead of crashing, and it invalidates itself when released, so the
/// session (and its delegate) never outlive their last user.
///
/// FoundationNetworking ends the process with `fatalError("Session invalidated")` when a task is created on an
/// invalidated `URLSession`, and keeps a session's delegate until the session is invalidated. Share one
/// `ManagedNetworkSession` between many procedures; its default configuration is `.ephemeral` (no on-disk cache
/// or cookies).
///
/// Two more FoundationNetworking faults are kept out:
/// - On Linux the session has no URL cache (the configuration's `urlCache` is set to `nil`), because cancelling a
///   data or upload task of a session with one may crash the process, and the procedures cancel and time out their
///   tasks. What is lost is FoundationNetworking's caching of responses whose headers allow it (it stores none
///   without them); a configuration's cache is kept on other platforms.
/// - A download is written into a file of PKNetwork's own (`PKNetwork-<UUID>.partial` in ``temporaryDirectory``),
///   deleted when the transfer fails or is cancelled and, on success, once the completion handler has returned
///   (``NetworkDownloadProcedure`` moves it first). FoundationNetworking's download tasks leave an empty `<UUID>.tmp`
///   in the temporary directory for every transfer that fails, and nobody learns its name. The session's delegate
///   does this work; the completion handlers run on the session's delegate queue, as `URLSession`'s do.
///
/// Thread-safe. Task creation and invalidation are serialized by a lock, so no task is created on a session that
/// is being invalidated.
public final class ManagedNetworkSession: NetworkSession {

    /// The wrapped session. Do not invalidate it directly: use ``invalidateAndCancel()`` or
    /// ``finishTasksAndInvalidate()``.
    public let session: URLSession

    /// The directory where downloads are written while they run (the process's temporary directory unless given).
    public var temporaryDirectory: URL { downloads.directory }

    /// `true` once invalidated; task creation happens under this lock (Foundation code only, never user code).
    private let invalidated = PKMutex(false)

    /// The session's delegate: it runs the downloads.
    private let downloads: ManagedDownloadDelegate

    /// Creates a session with `configuration` (`.ephemeral` by default) whose downloads are written into
    /// `temporaryDirectory` while they run (by default the process's temporary directory: `TMPDIR`, or `/tmp`, on
    /// Linux).
    ///
    /// On Linux the configuration's `urlCache` is dropped (see above), a fractional `timeoutIntervalForRequest` is
    /// rounded up to whole seconds (FoundationNetworking truncates it, so 0.5 s fired after a millisecond or so), a NaN
    /// one becomes 60 s and one above 1e9 s (infinity included) 1e9 s: FoundationNetworking traps on those.
    public init(configuration: URLSessionConfiguration = .ephemeral, temporaryDirectory: URL? = nil) {
        #if canImport(FoundationNetworking)
            let configuration = configuration.copy() as? URLSessionConfiguration ?? configuration
            configuration.timeoutIntervalForRequest = NetworkRequestPreparation.safeTimeout(
                configuration.timeoutIntervalForRequest)
            configuration.urlCache = nil
        #endif
        downloads = ManagedDownloadDelegate(directory: temporaryDirectory ?? FileManager.default.temporaryDirectory)
        session = URLSession(configuration: configuration, delegate: downloads, delegateQueue: nil)
    }

    deinit {
        let wasInvalidated = invalidated.withLock { $0 }
        if !wasInvalidated { session.finishTasksAndInvalidate() }
    }

    /// Whether the session has been invalidated.
    public var isInvalidated: Bool { invalidated.withLock { $0 } }

    /// Cancels every task and invalidates the session; later tasks fail with ``NetworkSessionError/invalidated``.
    public func invalidateAndCancel() {
        invalidated.withLock { invalidated in
            guard !invalidated else { return }
            invalidated = true
            session.invalidateAndCancel()
        }
    }

    /// Lets running tasks finish and invalidates the session; later tasks fail with
    /// ``NetworkSessionError/invalidated``.
    public func finishTasksAndInvalidate() {
        invalidated.withLock { invalidated in
            guard !invalidated else { return }
            invalidated = true
            session.finishTasksAndInvalidate()
        }
    }

    /// Makes a data task, or a task failing with ``NetworkSessionError/invalidated``.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask {
        let task: (any NetworkDataTask)? = invalidated.withLock { invalidated in
            invalidated
                ? nil : CacheFreeSessionTask(session.dataTask(with: request, completionHandler: completionHandler))
        }
        return task ?? FailedNetworkTask { completionHandler(nil, nil, NetworkSessionError.invalidated) }
    }

    /// Makes a download task, or a task failing with ``NetworkSessionError/invalidated``.
    ///
    /// The body is written into a file of PKNetwork's own in ``temporaryDirectory``, which exists while
    /// `completionHandler` runs (move it then to keep it) and never after: a failed or cancelled download leaves
    /// nothing behind. The handler runs on the session's delegate queue.
    public func downloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask {
        let task: (any NetworkDownloadTask)? = invalidated.withLock { invalidated in
            guard !invalidated else { return nil }
            // A data task without a completion handler: the delegate receives its body.
            let task = session.dataTask(with: request)
            downloads.register(task, completion: completionHandler)
            return CacheFreeSessionTask(task)
        }
        return task ?? FailedNetworkTask { completionHandler(nil, nil, NetworkSessionError.invalidated) }
    }

    /// Makes an upload task, or a task failing with ``NetworkSessionError/invalidated``.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask {
        let task: (any NetworkUploadTask)? = invalidated.withLock { invalidated in
            invalidated
                ? nil
                : CacheFreeSessionTask(
                    session.uploadTask(with: request, from: bodyData ?? Data(), completionHandler: completionHandler))
        }
        return task ?? FailedNetworkTask { completionHandler(nil, nil, NetworkSessionError.invalidated) }
    }
}
