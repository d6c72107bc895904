import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Makes the tasks PKNetwork's procedures run: ProcedureKit's `NetworkSession`, with its requirements' names and
/// shapes, so that a test double written for ProcedureKit conforms unchanged.
///
/// PKNetwork's own sessions are ``ManagedNetworkSession`` (recommended: it survives invalidation) and
/// ``URLSessionAdapter``, which adapts any `URLSession`. Every procedure also has an initialiser that takes a
/// `URLSession` directly:
///
/// ```swift
/// let fetch = NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url))
/// ```
///
/// `URLSession` itself does not conform, unlike in ProcedureKit: conforming would add methods spelled like
/// `URLSession`'s own (`dataTask(with:completionHandler:)`) to every `URLSession`, and make users' ordinary calls to
/// them ambiguous (ProcedureKit issue #915). Code that stored a `URLSession` in a `NetworkSession` variable wraps it:
/// `URLSessionAdapter(session)`.
///
/// A session calls each completion handler once, on a thread of its choosing (`URLSession` uses its delegate
/// queue); the procedures hop off that thread before running any user code.
///
/// The handlers are `@Sendable`. A ProcedureKit test double whose methods take plain closures still conforms: in the
/// Swift 5 language mode unchanged, in the Swift 6 mode with `@Sendable` added to their parameters.
public protocol NetworkSession: Sendable {
    /// Makes a task that loads `request`'s response into memory.
    func dataTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDataTask

    /// Makes a task that downloads `request`'s response to a temporary file.
    ///
    /// The file exists only while the completion handler runs: the handler must move it or lose it.
    func downloadTask(
        with request: URLRequest,
        completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkDownloadTask

    /// Makes a task that sends `bodyData` (an empty body when `nil`) with `request`.
    func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> any NetworkUploadTask
}
