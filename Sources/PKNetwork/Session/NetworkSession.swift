import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Makes the tasks PKNetwork's procedures run: `URLSession` conforms, and tests or users can substitute their own.
///
/// The shapes are ProcedureKitNetwork's, with distinct method names (`makeDataTask`, …): ProcedureKit's
/// `dataTask(with:completionHandler:)` requirement, with the same spelling as `URLSession`'s own method, made
/// ordinary `URLSession` calls ambiguous in users' code.
///
/// A session calls each completion handler once, on a thread of its choosing (`URLSession` uses its delegate
/// queue); the procedures hop off that thread before running any user code.
public protocol NetworkSession: Sendable {
    /// Makes a task that loads `request`'s response into memory.
    func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask

    /// Makes a task that downloads `request`'s response to a temporary file.
    ///
    /// The file exists only while the completion handler runs: the handler must move it or lose it.
    func makeDownloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask

    /// Makes a task that sends `bodyData` (an empty body when `nil`) with `request`.
    func makeUploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask
}

extension URLSession: NetworkSession {
    /// Makes a `URLSessionDataTask`.
    ///
    /// Creating a task on an invalidated `URLSession` is a fatal error in FoundationNetworking; use a
    /// ``ManagedNetworkSession`` when a session may be invalidated while procedures still use it.
    public func makeDataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask {
        dataTask(with: request, completionHandler: completionHandler)
    }

    /// Makes a `URLSessionDownloadTask`. See ``makeDataTask(with:completionHandler:)`` about invalidation.
    public func makeDownloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask {
        downloadTask(with: request, completionHandler: completionHandler)
    }

    /// Makes a `URLSessionUploadTask`, sending an empty body when `bodyData` is `nil` (FoundationNetworking
    /// crashes on a `nil` body). See ``makeDataTask(with:completionHandler:)`` about invalidation.
    public func makeUploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask {
        uploadTask(with: request, from: bodyData ?? Data(), completionHandler: completionHandler)
    }
}
