import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A ``NetworkSession`` that makes its tasks with a `URLSession`: what the procedures' `init(session: URLSession, …)`
/// initialisers use.
///
/// It neither owns nor invalidates the session. Creating a task on an invalidated `URLSession` is a fatal error in
/// FoundationNetworking: when the session may be invalidated while procedures still use it, use a
/// ``ManagedNetworkSession`` instead.
///
/// On Linux, cancelling a data or upload task of a session with a URL cache (`URLSession.shared`, `.default` and
/// `.ephemeral` configurations all have one) may crash the process, so the procedures do not cancel such a task:
/// they finish at once and let it run to its end (see ``NetworkDataProcedure``). For a session whose configuration's
/// `urlCache` is `nil`, the adapter's tasks are cancelled as usual. A ``ManagedNetworkSession`` has no cache there.
///
/// Thread-safe (`URLSession` is).
public struct URLSessionAdapter: NetworkSession {

    /// The adapted session.
    public let session: URLSession

    /// Whether the session has no URL cache, so that its data and upload tasks may be cancelled on Linux.
    private let isCacheFree: Bool

    /// Adapts `session`.
    public init(_ session: URLSession) {
        self.session = session
        isCacheFree = session.configuration.urlCache == nil
    }

    /// `task`, marked as safe to cancel when the session has no URL cache (see ``CacheFreeSessionTask``).
    private func marked(_ task: URLSessionTask) -> CacheFreeSessionTask? {
        isCacheFree ? CacheFreeSessionTask(task) : nil
    }

    /// Makes a `URLSessionDataTask` (for a session without a URL cache, wrapped in a task the procedures know they
    /// may cancel).
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask {
        let task: URLSessionDataTask = session.dataTask(with: request, completionHandler: completionHandler)
        return marked(task) ?? task
    }

    /// Makes a `URLSessionDownloadTask`.
    public func downloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask {
        let task: URLSessionDownloadTask = session.downloadTask(with: request, completionHandler: completionHandler)
        return task
    }

    /// Makes a `URLSessionUploadTask`, sending an empty body when `bodyData` is `nil` (FoundationNetworking
    /// crashes on a `nil` body); for a session without a URL cache, wrapped in a task the procedures know they
    /// may cancel.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask {
        let task: URLSessionUploadTask = session.uploadTask(
            with: request, from: bodyData ?? Data(), completionHandler: completionHandler)
        return marked(task) ?? task
    }
}
