import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides, after a failed attempt of a ``NetworkProcedure``, whether and when to try again: ProcedureKit's
/// `NetworkRecovery`, open so that a subclass can act between attempts.
///
/// The default policy is the one ``NetworkProcedure`` describes: retryable statuses after the backoff or
/// `Retry-After`, connection-level failures of idempotent requests, and a ``NetworkReachabilityWaitProcedure`` first
/// when the ``ConnectivityMonitor``'s provider reports no network. Override ProcedureKit's hooks:
/// ``shouldRetry(givenNetworkResponse:)`` to change what is retried, or ``recover(withInfo:payload:)`` to handle
/// more, for example to refresh a token after a 401 before the next attempt, calling `super` for the rest:
///
/// ```swift
/// final class RefreshingRecovery: NetworkRecovery<NetworkDataProcedure>, @unchecked Sendable {
///     // @unchecked Sendable: no stored state besides NetworkRecovery's immutable properties.
///     override func recover(
///         withInfo info: RetryFailureInfo<NetworkDataProcedure>,
///         payload: RepeatProcedurePayload<NetworkDataProcedure>
///     ) -> RepeatProcedurePayload<NetworkDataProcedure>? {
///         guard (info.error as? HTTPStatusError)?.code == .unauthorized, info.count == 1,
///             let request = payload.operation.input.value
///         else { return super.recover(withInfo: info, payload: payload) }
///         let refresh = NetworkDataProcedure(session: session, request: tokenRequest)
///         payload.operation.injectResult(from: refresh) { (response: HTTPPayloadResponse<Data>) in
///             var authorized = request
///             let token = String(decoding: response.payload ?? Data(), as: UTF8.self)
///             authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///             return authorized
///         }
///         info.addOperations(refresh)
///         return payload.set(delay: nil)
///     }
/// }
///
/// let fetch = NetworkProcedure(recovery: RefreshingRecovery()) {
///     NetworkDataProcedure(session: session, request: request).validate()
/// }
/// ```
///
/// Only a failed attempt reaches the recovery: a status is a failure when the attempt validates it
/// (``NetworkDataProcedure/validate(statusCodes:)``) or when the resilience retries it. A recovery may be shared by
/// several network procedures; it must then keep no per-procedure state, or guard what it keeps with a lock.
open class NetworkRecovery<T: Procedure & NetworkOperation>: @unchecked Sendable {
    // @unchecked Sendable: no lock is needed, every stored property is immutable and Sendable (an open class cannot
    // be checked); subclasses that add mutable state must guard it with a lock such as PKMutex.

    /// The retry policy: attempts, backoff, per-attempt timeout and which statuses to retry.
    public let resilience: any NetworkResilience
    /// The connectivity a wait after a connection failure asks for.
    public let connectivity: NetworkConnectivity
    /// The monitor asked about connectivity after a connection failure.
    public let monitor: ConnectivityMonitor

    /// Creates a recovery with `resilience`, waiting for `connectivity` through `monitor` when the network is down.
    public init(
        resilience: any NetworkResilience = DefaultNetworkResilience(), connectivity: NetworkConnectivity = .any,
        monitor: ConnectivityMonitor = .shared
    ) {
        self.resilience = resilience
        self.connectivity = connectivity
        self.monitor = monitor
    }

    /// Returns the next attempt to make after the failed attempt `info` describes, for `procedure`: what
    /// ``NetworkProcedure`` calls. By default, ``recover(withInfo:payload:)``.
    ///
    /// Override this one when the recovery needs the network procedure itself (say, to read another of its
    /// properties); otherwise override ProcedureKit's ``recover(withInfo:payload:)``. Runs in `procedure`'s event
    /// context, serialized with its other events, while the failed attempt is finishing: keep it short and never
    /// wait in it. Not called when `procedure` has been cancelled, nor after the last permitted attempt.
    open func recover(
        withInfo info: RetryFailureInfo<T>, payload: RepeatProcedurePayload<T>, for procedure: NetworkProcedure<T>
    ) -> RepeatProcedurePayload<T>? {
        recover(withInfo: info, payload: payload)
    }

    /// Returns the next attempt to make after the failed attempt `info` describes (`payload`, possibly adjusted,
    /// for example with another delay), or `nil` to stop, in which case the network procedure finishes with the
    /// attempt's errors: ProcedureKit's `recover(withInfo:payload:)`.
    ///
    /// The default policy:
    /// 1. When ``shouldWaitForReachabilityChange(givenNetworkResponse:)``, the next attempt waits for a
    ///    ``NetworkReachabilityWaitProcedure`` (added with `info.addOperations`) instead of the backoff, whatever the
    ///    method: the request never left the machine.
    /// 2. Otherwise, unless ``shouldRetry(givenNetworkResponse:)``, stop.
    /// 3. A retried status (the attempt's error's, or, for an error that is not a connection failure, its response's)
    ///    repeats a request that was not idempotent only for 408, 429 and 503 (the request was not processed) or when
    ///    ``NetworkResilience/retriesNonIdempotentRequests`` says so; 429 and 503 wait for the server's
    ///    `Retry-After`, capped at ``NetworkResilience/maximumRetryAfter``.
    /// 4. Any other failure repeats a request only when it is idempotent (or the resilience says so), first waiting
    ///    for connectivity when the ``ConnectivityMonitor``'s provider reports none.
    ///
    /// To run work before the next attempt, add it with `info.addOperations` and make `payload.operation` depend on
    /// it (or inject its result); cancelling the network procedure cancels that work too.
    open func recover(withInfo info: RetryFailureInfo<T>, payload: RepeatProcedurePayload<T>)
        -> RepeatProcedurePayload<T>?
    {
        let attempt = info.operation
        guard let error = info.error else { return nil }
        let mayRepeatUnsafely =
            resilience.retriesNonIdempotentRequests || (attempt.networkRequest?.isIdempotent ?? false)
        let response = ProcedureKitNetworkResponse(response: attempt.urlResponse, error: error)

        if shouldWaitForReachabilityChange(givenNetworkResponse: response) {
            return waitForConnectivity(before: payload, info: info)
        }
        guard shouldRetry(givenNetworkResponse: response) else { return nil }

        let connectionFailed = response.error?.isConnectionLevelError == true
        let responseCode = attempt.urlResponse.flatMap { HTTPStatusCode.equivalent(to: $0.statusCode) }
        if let code = statusCode(of: error) ?? (connectionFailed ? nil : responseCode) {
            // 408, 429 and 503 say the request was not processed; other statuses may mean it was.
            let unprocessed: Set<HTTPStatusCode> = [.requestTimeout, .tooManyRequests, .serviceUnavailable]
            guard unprocessed.contains(code) || mayRepeatUnsafely else { return nil }
            if code == .tooManyRequests || code == .serviceUnavailable, let response = attempt.urlResponse,
                let wait = RetryAfter.interval(in: response)
            {
                // A NaN cap would be ignored by `min`: it counts as the protocol's default, 60 s.
                let cap = resilience.maximumRetryAfter.isNaN ? 60 : max(0, resilience.maximumRetryAfter)
                return payload.set(delay: .by(min(wait, cap)))
            }
            return payload
        }

        guard mayRepeatUnsafely else { return nil }
        if connectionFailed, monitor.provider.knowsCurrentStatus,
            !monitor.provider.currentStatus().satisfies(connectivity)
        {
            return waitForConnectivity(before: payload, info: info)
        }
        return payload
    }

    /// Whether the attempt that `networkResponse` describes should be retried: ProcedureKit's hook, open so that
    /// a subclass can widen or narrow it.
    ///
    /// By default: a connection-level failure (``ProcedureKitNetworkError/isTransientError`` or
    /// ``ProcedureKitNetworkError/isTimeoutError``), or a 4xx/5xx status that the ``resilience`` retries
    /// (``NetworkResilience/shouldRetry(forResponseWithHTTPStatusCode:)``). ``NetworkProcedure`` also asks it about
    /// an attempt that finished without error: a status it accepts makes that attempt fail with
    /// ``ProcedureKitNetworkResiliencyError/receivedErrorStatusCode(_:)``, so that it is retried.
    open func shouldRetry(givenNetworkResponse networkResponse: ProcedureKitNetworkResponse) -> Bool {
        if let error = networkResponse.error, error.isTransientError || error.isTimeoutError { return true }
        guard let code = networkResponse.httpStatusCode, code.isClientError || code.isServerError else {
            return false
        }
        return resilience.shouldRetry(forResponseWithHTTPStatusCode: code)
    }

    /// Whether the attempt failed for want of a network, so that the next attempt should wait for connectivity
    /// rather than the backoff: ProcedureKit's hook. By default,
    /// ``ProcedureKitNetworkError/waitForReachabilityChangeBeforeRetrying``.
    open func shouldWaitForReachabilityChange(givenNetworkResponse networkResponse: ProcedureKitNetworkResponse)
        -> Bool
    {
        networkResponse.error?.waitForReachabilityChangeBeforeRetrying ?? false
    }

    /// `payload`, without delay, after a ``NetworkReachabilityWaitProcedure`` added to the network procedure.
    private func waitForConnectivity(before payload: RepeatProcedurePayload<T>, info: RetryFailureInfo<T>)
        -> RepeatProcedurePayload<T>
    {
        let wait = NetworkReachabilityWaitProcedure(connectivity: connectivity, monitor: monitor)
        payload.operation.addDependency(wait)
        info.addOperations(wait)
        return payload.set(delay: nil)
    }

    /// The status code that made the attempt fail: a retryable status the procedure turned into an error, or a
    /// validation's ``HTTPStatusError`` (an unnamed code as its class's x00 code).
    private func statusCode(of error: any Error) -> HTTPStatusCode? {
        if case .receivedErrorStatusCode(let code)? = error as? ProcedureKitNetworkResiliencyError { return code }
        if let status = error as? HTTPStatusError { return HTTPStatusCode.equivalent(to: status.statusCode) }
        return nil
    }
}
