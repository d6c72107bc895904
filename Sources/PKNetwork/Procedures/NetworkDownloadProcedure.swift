import Foundation
import PKCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Downloads a request's response to a file with a ``NetworkSession``: ProcedureKit's `NetworkDownloadProcedure`.
///
/// ```swift
/// let download = NetworkDownloadProcedure(session: session, request: URLRequest(url: url))
/// let file = try await queue.run(download).payload!   // yours: move or delete it
/// ```
///
/// The input is the `URLRequest`; the output is the URL of the downloaded file and the `HTTPURLResponse`. The
/// session's temporary file is moved, inside the session's completion handler, to a file of the procedure's own
/// in `downloadDirectory` (the temporary directory by default; named `PKNetwork-…`), which then belongs to the
/// caller. The session's file exists only while its handler runs (``ManagedNetworkSession`` and Darwin delete it
/// afterwards), so this is the one place a download can be kept. When the procedure does not output the file (it was
/// cancelled, or validation failed) the file is deleted.
///
/// With a ``ManagedNetworkSession`` no download leaves anything behind, whatever its outcome. On Linux a plain
/// `URLSession` (through ``URLSessionAdapter``) downloads with FoundationNetworking's download tasks, which leave an
/// empty `<UUID>.tmp` in the temporary directory for every transfer that fails or is cancelled, and tell nobody its
/// name: PKNetwork cannot delete it.
///
/// Errors are as for ``NetworkDataProcedure``; with ``validate(statusCodes:)``, the ``HTTPStatusError`` carries up
/// to the first 64 KB of the body. Error bodies (a 500's, say) are downloaded like any other.
///
/// The completion handler is called once with the result, on a global dispatch queue, before the procedure
/// finishes; it is not called when the procedure is cancelled.
///
/// Cancellation: a DidCancel observer cancels the task; when the task completes the procedure finishes, cancelled,
/// without another error and without calling the completion handler (a bare `URLSessionDataTask` a custom session
/// returns is treated as ``NetworkDataProcedure`` describes).
open class NetworkDownloadProcedure: Procedure, InputProcedure, OutputProcedure, NetworkOperation,
    @unchecked Sendable
{
    // @unchecked Sendable: `values` is guarded by its PKMutex, the controller by its own; `session` and
    // `completion` are immutable and Sendable; the rest is Procedure's.

    /// The procedure's result: ProcedureKit's `NetworkResult`.
    public typealias NetworkResult = ProcedureResult<HTTPPayloadResponse<URL>>

    /// The completion handler's type.
    public typealias CompletionBlock = @Sendable (NetworkResult) -> Void

    private struct Values {
        var input: Pending<URLRequest>
        var output: Pending<ProcedureResult<HTTPPayloadResponse<URL>>> = .pending
        var response: HTTPURLResponse?
        var acceptable: Set<Int>?
    }

    /// The most of an error body an ``HTTPStatusError`` carries.
    static let errorBodyLimit = 64 * 1024

    /// The session that makes the task.
    public let session: any NetworkSession
    /// The directory the downloaded file is moved to.
    public let downloadDirectory: URL
    /// The completion handler, called once with the result before the procedure finishes (not when it is
    /// cancelled).
    public let completion: CompletionBlock
    private let values: PKMutex<Values>
    private let controller = NetworkTaskController()

    /// Creates a procedure that downloads `request` (or the injected request) with `session`, into a file in
    /// `downloadDirectory` (by default the temporary directory).
    public init(
        session: any NetworkSession, request: URLRequest? = nil, downloadDirectory: URL? = nil,
        completionHandler: @escaping CompletionBlock = { _ in }
    ) {
        self.session = session
        self.downloadDirectory = downloadDirectory ?? FileManager.default.temporaryDirectory
        self.completion = completionHandler
        self.values = PKMutex(Values(input: request.pending))
        super.init()
        name = "NetworkDownloadProcedure"
        addObserver(NetworkTaskCancelObserver(controller: controller))
    }

    /// Creates a procedure that downloads `request` (or the injected request) with a `URLSession`, through a ``URLSessionAdapter``.
    public convenience init(
        session: URLSession, request: URLRequest? = nil, downloadDirectory: URL? = nil,
        completionHandler: @escaping CompletionBlock = { _ in }
    ) {
        self.init(
            session: URLSessionAdapter(session), request: request, downloadDirectory: downloadDirectory,
            completionHandler: completionHandler)
    }

    /// The request.
    public var input: Pending<URLRequest> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    /// The downloaded file and response, once downloaded.
    public var output: Pending<ProcedureResult<HTTPPayloadResponse<URL>>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    /// The HTTP response, once there is one.
    public var urlResponse: HTTPURLResponse? { values.withLock { $0.response } }

    /// The request, once known.
    public var networkRequest: URLRequest? { input.value }

    /// Makes a status code outside `statusCodes` (2xx by default) fail the procedure with an ``HTTPStatusError``
    /// carrying the status and the start of the body; the file is then deleted. Call it before the procedure
    /// executes. Returns the procedure.
    @discardableResult
    public func validate(statusCodes: some Sequence<Int> = 200..<300) -> Self {
        let codes = Set(statusCodes)
        values.withLock { $0.acceptable = codes }
        return self
    }

    /// Makes and resumes the download task.
    open override func execute() {
        guard let request = input.value else {
            finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        guard !isCancelled else {
            finish()
            return
        }
        let task = session.downloadTask(with: NetworkRequestPreparation.prepare(request)) {
            location, response, error in
            // The session's file must be moved before this handler returns; everything else happens off the
            // session's delegate queue.
            let kept = location.map { location in Result { try Self.keep(location, in: self.downloadDirectory) } }
            NetworkRequestPreparation.hop { self.taskDidComplete(file: kept, response: response, error: error) }
        }
        // Cancelled meanwhile, with a task that may not be cancelled: finished now, the task abandoned.
        if controller.start(task) { finish() }
    }

    /// Moves the session's temporary file to one of the procedure's own; when that fails (the directory is missing
    /// or not writable, say), deletes the session's file, which FoundationNetworking would leave behind.
    private static func keep(_ location: URL, in directory: URL) throws -> URL {
        let destination = directory.appendingPathComponent("PKNetwork-\(UUID().uuidString).download")
        do {
            try FileManager.default.moveItem(at: location, to: destination)
        } catch {
            try? FileManager.default.removeItem(at: location)
            throw error
        }
        return destination
    }

    private static func discard(_ file: Result<URL, any Error>?) {
        if case .success(let url)? = file { try? FileManager.default.removeItem(at: url) }
    }

    private func taskDidComplete(file: Result<URL, any Error>?, response: URLResponse?, error: (any Error)?) {
        guard controller.complete() else {
            Self.discard(file)
            return
        }
        if isCancelled {
            Self.discard(file)
            finish()
            return
        }
        let http = response as? HTTPURLResponse
        let acceptable = values.withLock { values in
            values.response = http
            return values.acceptable
        }
        let result: ProcedureResult<HTTPPayloadResponse<URL>>
        if let error {
            result = .failure(error)
        } else if let http {
            switch file {
            case .success(let url)?:
                if let acceptable, !acceptable.contains(http.statusCode) {
                    let body = try? FileHandle(forReadingFrom: url).read(upToCount: Self.errorBodyLimit)
                    result = .failure(HTTPStatusError(statusCode: http.statusCode, body: body ?? nil, response: http))
                } else {
                    result = .success(HTTPPayloadResponse(payload: url, response: http))
                }
            case .failure(let moveError)?:
                result = .failure(moveError)
            case nil:
                result = .failure(NetworkResponseError.missingPayload.procedureKitError)
            }
        } else if let response {
            result = .failure(NetworkResponseError.notHTTPResponse(url: response.url).procedureKitError)
        } else {
            result = .failure(NetworkResponseError.missingPayload.procedureKitError)
        }
        if case .failure = result { Self.discard(file) }
        completion(result)
        finish(withResult: result)
    }
}
