import Foundation
import PKCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Loads a request's response into memory with a ``NetworkSession``: ProcedureKit's `NetworkDataProcedure`.
///
/// ```swift
/// let fetch = NetworkDataProcedure(session: URLSession.shared, request: URLRequest(url: url))
/// let response = try await queue.run(fetch)   // HTTPPayloadResponse<Data>
/// ```
///
/// The input is the `URLRequest` (inject it, or pass it to `init`); the output is the body and its
/// `HTTPURLResponse`. A missing input fails with ``/PKCore/ProcedureKitError/Context/requirementNotSatisfied``; a
/// task error is the procedure's error, as the session reported it (a `URLError`); a response that is not HTTP
/// fails with ProcedureKit's `unknown` error (caused by ``NetworkResponseError/notHTTPResponse(url:)``). Any status code is a success unless
/// ``validate(statusCodes:)`` was called, in which case another code fails with an ``HTTPStatusError``.
///
/// The completion handler is called once with the result, on a global dispatch queue (never on the session's
/// delegate queue), before the procedure finishes; it is not called when the procedure is cancelled.
///
/// Cancellation: a DidCancel observer cancels the task; when the task completes the procedure finishes, cancelled,
/// without another error and without calling the completion handler. On Linux a bare `URLSessionDataTask` (of a
/// `URLSession` adapted by ``URLSessionAdapter`` that has a URL cache, such as `URLSession.shared`) is not cancelled,
/// because FoundationNetworking may crash the process then: the procedure finishes at once and the request runs on to
/// its end, its outcome ignored. A ``ManagedNetworkSession``'s tasks are always cancelled. A fractional
/// `timeoutInterval` is rounded up to whole seconds on Linux (FoundationNetworking truncates it); use a
/// `TimeoutObserver` for a deadline.
open class NetworkDataProcedure: Procedure, InputProcedure, OutputProcedure, NetworkOperation, @unchecked Sendable {
    // @unchecked Sendable: `values` is guarded by its PKMutex, the controller by its own; `session` and
    // `completion` are immutable and Sendable; the rest is Procedure's.

    /// The procedure's result: ProcedureKit's `NetworkResult`.
    public typealias NetworkResult = ProcedureResult<HTTPPayloadResponse<Data>>

    /// The completion handler's type.
    public typealias CompletionBlock = @Sendable (NetworkResult) -> Void

    private struct Values {
        var input: Pending<URLRequest>
        var output: Pending<ProcedureResult<HTTPPayloadResponse<Data>>> = .pending
        var response: HTTPURLResponse?
        var acceptable: Set<Int>?
    }

    /// The session that makes the task.
    public let session: any NetworkSession
    /// The completion handler, called once with the result before the procedure finishes (not when it is
    /// cancelled).
    public let completion: CompletionBlock
    private let values: PKMutex<Values>
    private let controller = NetworkTaskController()

    /// Creates a procedure that loads `request` (or the injected request) with `session`.
    public init(
        session: any NetworkSession, request: URLRequest? = nil,
        completionHandler: @escaping CompletionBlock = { _ in }
    ) {
        self.session = session
        self.completion = completionHandler
        self.values = PKMutex(Values(input: request.pending))
        super.init()
        name = "NetworkDataProcedure"
        addObserver(NetworkTaskCancelObserver(controller: controller))
    }

    /// Creates a procedure that loads `request` (or the injected request) with a `URLSession`, through a ``URLSessionAdapter``.
    public convenience init(
        session: URLSession, request: URLRequest? = nil,
        completionHandler: @escaping CompletionBlock = { _ in }
    ) {
        self.init(
            session: URLSessionAdapter(session), request: request, completionHandler: completionHandler)
    }

    /// The request.
    public var input: Pending<URLRequest> {
        get { values.withLock { $0.input } }
        set { values.withLock { $0.input = newValue } }
    }

    /// The body and response, once loaded.
    public var output: Pending<ProcedureResult<HTTPPayloadResponse<Data>>> {
        get { values.withLock { $0.output } }
        set { values.withLock { $0.output = newValue } }
    }

    /// The HTTP response, once there is one.
    public var urlResponse: HTTPURLResponse? { values.withLock { $0.response } }

    /// The request, once known.
    public var networkRequest: URLRequest? { input.value }

    /// Makes a status code outside `statusCodes` (2xx by default) fail the procedure with an ``HTTPStatusError``
    /// carrying the status and body. Call it before the procedure executes. Returns the procedure.
    @discardableResult
    public func validate(statusCodes: some Sequence<Int> = 200..<300) -> Self {
        let codes = Set(statusCodes)
        values.withLock { $0.acceptable = codes }
        return self
    }

    /// Makes and resumes the task.
    open override func execute() {
        guard let request = input.value else {
            finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        guard !isCancelled else {
            finish()
            return
        }
        let task = session.dataTask(with: NetworkRequestPreparation.prepare(request)) {
            [weak self] data, response, error in
            // Weakly: until it finishes the procedure is its queue's; an abandoned task (see Cancellation) may
            // complete long after, and must not keep the procedure alive until then.
            NetworkRequestPreparation.hop { [weak self] in
                self?.taskDidComplete(data: data, response: response, error: error)
            }
        }
        // Cancelled meanwhile, with a task that may not be cancelled: finished now, the task abandoned.
        if controller.start(task) { finish() }
    }

    private func taskDidComplete(data: Data?, response: URLResponse?, error: (any Error)?) {
        guard controller.complete() else { return }
        if isCancelled {
            finish()
            return
        }
        let http = response as? HTTPURLResponse
        let acceptable = values.withLock { values in
            values.response = http
            return values.acceptable
        }
        let result = NetworkDataResult.make(data: data, response: response, error: error, acceptable: acceptable)
        completion(result)
        finish(withResult: result)
    }
}
