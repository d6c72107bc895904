import Dispatch
import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A fake URL session for tests: ProcedureKit's `TestableURLSessionTaskFactory`. Its tasks complete with what its
/// knobs say (``returnedData``, ``returnedURL``, ``returnedResponse``, ``returnedError``) after ``delay``, and it
/// records the requests it received and the tasks it returned.
///
/// As in ProcedureKit, PKTesting does not declare its conformance to PKNetwork's `NetworkSession`; a test target
/// does, with ProcedureKit's own extension (in the Swift 6 language mode, add `@Sendable` to the three
/// `completionHandler` parameters):
///
/// ```swift
/// extension TestableURLSessionTaskFactory: NetworkSession {
///     public func dataTask(
///         with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, Error?) -> Void
///     ) -> NetworkDataTask {
///         let task: TestableURLSessionTask = dataTask(with: request, completionHandler: completionHandler)
///         return task
///     }
///     // downloadTask(with:completionHandler:) and uploadTask(with:from:completionHandler:) alike
/// }
/// ```
///
/// Differences from ProcedureKit's: completions run on a global dispatch queue, not the main queue (a Linux test
/// process need not service the main queue); the default ``returnedResponse`` is a 200 response (ProcedureKit's
/// `HTTPURLResponse()` has no status on Linux); a cancelled task completes with `URLError.cancelled` (the same
/// domain and code as ProcedureKit's `NSError`).
///
/// Its tasks hold it weakly (it records the last task of each kind): a task of a factory that is gone completes as
/// cancelled. Thread-safe: knobs and records are guarded by one lock; completion handlers run outside it.
public final class TestableURLSessionTaskFactory: Sendable {

    private struct State {
        var delay: TimeInterval = 0
        var returnedResponse: HTTPURLResponse? = HTTPURLResponse(
            url: URL(string: "http://localhost/")!, statusCode: 200, httpVersion: "HTTP/1.1", headerFields: [:])
        var returnedError: (any Error)?
        var returnedData: Data? = Data("hello world".utf8)
        var returnedURL: URL? = URL(fileURLWithPath: "/var/tmp/hello/this/is/a/test/url")
        var didReceiveDataRequest: URLRequest?
        var didReturnDataTask: TestableURLSessionTask?
        var didReceiveDownloadRequest: URLRequest?
        var didReturnDownloadTask: TestableURLSessionTask?
        var didReceiveUploadRequest: URLRequest?
        var didReturnUploadTask: TestableURLSessionTask?
    }

    /// Knobs and records; user code (completion handlers) never runs under it.
    private let state = PKMutex(State())

    /// Creates a factory with ProcedureKit's defaults: no delay, a 200 response, no error, the body
    /// "hello world" and a made-up file URL.
    public init() {}

    private func get<Value: Sendable>(_ keyPath: any KeyPath<State, Value> & Sendable) -> Value {
        state.withLock { $0[keyPath: keyPath] }
    }

    private func set<Value: Sendable>(_ keyPath: any WritableKeyPath<State, Value> & Sendable, _ value: Value) {
        state.withLock { $0[keyPath: keyPath] = value }
    }

    // MARK: Knobs

    /// How long a task takes to complete after it resumes, in seconds.
    public var delay: TimeInterval {
        get { get(\.delay) }
        set { set(\.delay, newValue) }
    }
    /// The response tasks complete with.
    public var returnedResponse: HTTPURLResponse? {
        get { get(\.returnedResponse) }
        set { set(\.returnedResponse, newValue) }
    }
    /// The error tasks complete with, if any.
    public var returnedError: (any Error)? {
        get { get(\.returnedError) }
        set { set(\.returnedError, newValue) }
    }
    /// The body data and upload tasks complete with.
    public var returnedData: Data? {
        get { get(\.returnedData) }
        set { set(\.returnedData, newValue) }
    }
    /// The file download tasks complete with.
    public var returnedURL: URL? {
        get { get(\.returnedURL) }
        set { set(\.returnedURL, newValue) }
    }

    // MARK: Records

    /// The request of the last data task made.
    public var didReceiveDataRequest: URLRequest? {
        get { get(\.didReceiveDataRequest) }
        set { set(\.didReceiveDataRequest, newValue) }
    }
    /// The last data task made.
    public var didReturnDataTask: TestableURLSessionTask? {
        get { get(\.didReturnDataTask) }
        set { set(\.didReturnDataTask, newValue) }
    }
    /// The request of the last download task made.
    public var didReceiveDownloadRequest: URLRequest? {
        get { get(\.didReceiveDownloadRequest) }
        set { set(\.didReceiveDownloadRequest, newValue) }
    }
    /// The last download task made.
    public var didReturnDownloadTask: TestableURLSessionTask? {
        get { get(\.didReturnDownloadTask) }
        set { set(\.didReturnDownloadTask, newValue) }
    }
    /// The request of the last upload task made.
    public var didReceiveUploadRequest: URLRequest? {
        get { get(\.didReceiveUploadRequest) }
        set { set(\.didReceiveUploadRequest, newValue) }
    }
    /// The last upload task made.
    public var didReturnUploadTask: TestableURLSessionTask? {
        get { get(\.didReturnUploadTask) }
        set { set(\.didReturnUploadTask, newValue) }
    }

    // MARK: Tasks

    /// Makes a data task that completes with ``returnedData``, ``returnedResponse`` and ``returnedError``.
    public func dataTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> TestableURLSessionTask {
        makeTask(
            for: request, payload: \.returnedData, records: \.didReceiveDataRequest, \.didReturnDataTask,
            completionHandler)
    }

    /// Makes a download task that completes with ``returnedURL``, ``returnedResponse`` and ``returnedError``.
    public func downloadTask(
        with request: URLRequest, completionHandler: @escaping @Sendable (URL?, URLResponse?, (any Error)?) -> Void
    ) -> TestableURLSessionTask {
        makeTask(
            for: request, payload: \.returnedURL, records: \.didReceiveDownloadRequest, \.didReturnDownloadTask,
            completionHandler)
    }

    /// Makes an upload task that completes with ``returnedData``, ``returnedResponse`` and ``returnedError``.
    public func uploadTask(
        with request: URLRequest, from bodyData: Data?,
        completionHandler: @escaping @Sendable (Data?, URLResponse?, (any Error)?) -> Void
    ) -> TestableURLSessionTask {
        makeTask(
            for: request, payload: \.returnedData, records: \.didReceiveUploadRequest, \.didReturnUploadTask,
            completionHandler)
    }

    /// A task completing with the knob `payload` (or as cancelled), recorded in `requestRecord` and `taskRecord`.
    private func makeTask<Payload: Sendable>(
        for request: URLRequest, payload: any KeyPath<State, Payload?> & Sendable,
        records requestRecord: any WritableKeyPath<State, URLRequest?> & Sendable,
        _ taskRecord: any WritableKeyPath<State, TestableURLSessionTask?> & Sendable,
        _ completionHandler: @escaping @Sendable (Payload?, URLResponse?, (any Error)?) -> Void
    ) -> TestableURLSessionTask {
        let task = TestableURLSessionTask(delay: delay) { [weak self] task in
            guard let self, !task.didCancel else {
                return completionHandler(nil, nil, Self.cancelledError(for: request))
            }
            let (body, response, error) = state.withLock {
                ($0[keyPath: payload], $0.returnedResponse, $0.returnedError)
            }
            completionHandler(body, response, error)
        }
        state.withLock {
            $0[keyPath: requestRecord] = request
            $0[keyPath: taskRecord] = task
        }
        return task
    }

    /// `URLError.cancelled`, naming the request's URL as URLSession does.
    private static func cancelledError(for request: URLRequest) -> URLError {
        var userInfo: [String: any Sendable] = [NSLocalizedDescriptionKey: "cancelled"]
        if let url = request.url { userInfo[NSURLErrorFailingURLErrorKey] = url }
        return URLError(.cancelled, userInfo: userInfo)
    }
}
