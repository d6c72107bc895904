import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Decides, after a failed attempt of a ``NetworkProcedure``, whether and when to try again (ProcedureKit's
/// `NetworkRecovery`).
struct NetworkRecovery<T: Procedure & NetworkOperation>: Sendable {
    let resilience: any NetworkResilience
    let connectivity: NetworkConnectivity
    let monitor: ConnectivityMonitor

    func recover(
        _ info: RetryFailureInfo<T>, _ payload: RepeatProcedurePayload<T>, target: RecoveryTarget<T>
    ) -> RepeatProcedurePayload<T>? {
        let attempt = info.operation
        guard let error = info.error else { return nil }
        let mayRepeatUnsafely =
            resilience.retriesNonIdempotentRequests || (attempt.networkRequest?.isIdempotent ?? false)
        let networkError = ProcedureKitNetworkError(error)

        if let code = statusCode(of: error, attempt: attempt) {
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
            || !monitor.provider.currentStatus().satisfies(connectivity),
            let procedure = target.procedure
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
    private func statusCode(of error: any Error, attempt: T) -> HTTPStatusCode? {
        if case .receivedErrorStatusCode(let code)? = error as? ProcedureKitNetworkResiliencyError { return code }
        if let status = error as? HTTPStatusError { return status.code }
        return nil
    }
}
