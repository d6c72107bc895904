import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides, after a failed attempt of a ``NetworkProcedure``, whether and when to try again: ProcedureKit's
/// `NetworkRecovery`, open so that a subclass can act between attempts.
///
/// The default policy is the one ``NetworkProcedure`` describes: retryable statuses after the backoff or
/// `Retry-After`, connection-level failures of idempotent requests, and a ``NetworkReachabilityWaitProcedure`` first
/// when the ``ConnectivityMonitor``'s provider reports no network. Override
/// ``recover(withInfo:payload:for:)`` to handle more, for example to refresh a token after a 401 before the next
/// attempt, and call `super` for the rest:
///
/// ```swift
/// final class RefreshingRecovery: NetworkRecovery<NetworkDataProcedure>, @unchecked Sendable {
///     // @unchecked Sendable: no stored state besides NetworkRecovery's immutable properties.
///     override func recover(
///         withInfo info: RetryFailureInfo<NetworkDataProcedure>,
///         payload: RepeatProcedurePayload<NetworkDataProcedure>,
///         for procedure: NetworkProcedure<NetworkDataProcedure>
///     ) -> RepeatProcedurePayload<NetworkDataProcedure>? {
///         guard (info.error as? HTTPStatusError)?.code == .unauthorized, info.count == 1,
///             let request = payload.operation.input.value
///         else { return super.recover(withInfo: info, payload: payload, for: procedure) }
///         let refresh = NetworkDataProcedure(session: session, request: tokenRequest)
///         payload.operation.injectResult(from: refresh) { (response: HTTPPayloadResponse<Data>) in
///             var authorized = request
///             let token = String(decoding: response.payload ?? Data(), as: UTF8.self)
///             authorized.setValue("Bearer \(token)", forHTTPHeaderField: "Authorization")
///             return authorized
///         }
///         procedure.addChild(refresh)
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

    /// Returns the next attempt to make after the failed attempt `info` describes (`payload`, possibly adjusted, for
    /// example with another delay), or `nil` to stop, in which case the network procedure finishes with the
    /// attempt's errors.
    ///
    /// Runs in `procedure`'s event context, serialized with its other events, while the failed attempt is
    /// finishing: keep it short and never wait in it. To run work before the next attempt, add it to `procedure`
    /// with `addChild(_:)` and make `payload.operation` depend on it (or inject its result); cancelling `procedure`
    /// cancels that work too (add it only when returning a payload). Not called when `procedure` has been
    /// cancelled, nor after the last permitted attempt.
    open func recover(
        withInfo info: RetryFailureInfo<T>, payload: RepeatProcedurePayload<T>, for procedure: NetworkProcedure<T>
    ) -> RepeatProcedurePayload<T>? {
        let attempt = info.operation
        guard let error = info.error else { return nil }
        let mayRepeatUnsafely =
            resilience.retriesNonIdempotentRequests || (attempt.networkRequest?.isIdempotent ?? false)
        let networkError = ProcedureKitNetworkError(error)

        if let code = statusCode(of: error) {
            guard resilience.shouldRetry(forResponseWithHTTPStatusCode: code) else { return nil }
            // 408, 429 and 503 say the request was not processed; other statuses may mean it was.
            let unprocessed: Set<HTTPStatusCode> = [.requestTimeout, .tooManyRequests, .serviceUnavailable]
            guard unprocessed.contains(code) || mayRepeatUnsafely else { return nil }
            if code == .tooManyRequests || code == .serviceUnavailable, let response = attempt.urlResponse,
                let wait = RetryAfter.interval(in: response)
            {
                return payload.set(delay: .by(min(wait, resilience.maximumRetryAfter)))
            }
            return payload
        }

        guard networkError.isConnectionLevelError || networkError.waitForReachabilityChangeBeforeRetrying,
            mayRepeatUnsafely
        else { return nil }
        if networkError.waitForReachabilityChangeBeforeRetrying
            || !monitor.provider.currentStatus().satisfies(connectivity)
        {
            let wait = NetworkReachabilityWaitProcedure(connectivity: connectivity, monitor: monitor)
            payload.operation.addDependency(wait)
            procedure.addChild(wait)
            return payload.set(delay: nil)
        }
        return payload
    }

    /// The status code that made the attempt fail: a retryable status the procedure turned into an error, or a
    /// validation's ``HTTPStatusError``.
    private func statusCode(of error: any Error) -> HTTPStatusCode? {
        if case .receivedErrorStatusCode(let code)? = error as? ProcedureKitNetworkResiliencyError { return code }
        if let status = error as? HTTPStatusError { return status.code }
        return nil
    }
}
