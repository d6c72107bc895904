import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A task a ``NetworkSession`` makes: ProcedureKit's `URLSessionTaskProtocol`, under which name it is also known.
///
/// PKNetwork's procedures call ``resume()`` once, from the procedure's event context, and ``cancel()`` from a
/// DidCancel observer; a conforming task must then call its completion handler once, with `URLError.cancelled`
/// when it was cancelled before it completed.
///
/// `Sendable` because the procedures hand a task between threads. A ProcedureKit test double conforms unchanged
/// in the Swift 5 language mode (with a warning); in the Swift 6 mode, make it `Sendable` (PKTesting's
/// `TestableURLSessionTask` is).
public protocol NetworkTask: Sendable {
    /// Starts the task.
    func resume()
    /// Cancels the task; its completion handler is still called, once.
    func cancel()
}

/// ProcedureKit's name for ``NetworkTask``.
public typealias URLSessionTaskProtocol = NetworkTask

/// A task that loads a response body into memory.
public protocol NetworkDataTask: NetworkTask {}

/// A task that downloads a response body to a file.
public protocol NetworkDownloadTask: NetworkTask {}

/// A task that uploads a request body.
public protocol NetworkUploadTask: NetworkTask {}

extension URLSessionTask: NetworkTask {}
extension URLSessionDataTask: NetworkDataTask {}
extension URLSessionDownloadTask: NetworkDownloadTask {}
extension URLSessionUploadTask: NetworkUploadTask {}
