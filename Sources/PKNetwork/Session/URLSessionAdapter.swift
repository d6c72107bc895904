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
/// Thread-safe (`URLSession` is).
public struct URLSessionAdapter: NetworkSession {

    /// The adapted session.
    public let session: URLSession

    /// Adapts `session`.
    public init(_ session: URLSession) {
        self.session = session
    }

    /// Makes a `URLSessionDataTask`.
    public func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask {
        let task: URLSessionDataTask = session.dataTask(with: request, completionHandler: completionHandler)
        return task
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
    /// crashes on a `nil` body).
    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask {
        let task: URLSessionUploadTask = session.uploadTask(
            with: request, from: bodyData ?? Data(), completionHandler: completionHandler)
        return task
    }
}
