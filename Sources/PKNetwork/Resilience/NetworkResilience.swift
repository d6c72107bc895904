import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// How a ``NetworkProcedure`` retries: ProcedureKit's `NetworkResilience`, with a policy for requests that are not
/// idempotent and for `Retry-After`.
public protocol NetworkResilience: Sendable {
    /// The most attempts, the first included.
    var maximumNumberOfAttempts: Int { get }
    /// The waits between attempts (the first value goes with the first attempt and is not waited, as in
    /// ``/PKCore/RetryProcedure``).
    var backoffStrategy: WaitStrategy { get }
    /// The time limit of each attempt, enforced by a `TimeoutObserver`; `nil` for none.
    var requestTimeout: TimeInterval? { get }
    /// Whether a response with `statusCode` should be retried.
    func shouldRetry(forResponseWithHTTPStatusCode statusCode: HTTPStatusCode) -> Bool
    /// Whether connection-level failures (refused, reset, empty reply, timeouts) and 5xx responses other than 503
    /// may be retried for requests that are not idempotent (POST, PATCH, or an unknown method). Defaults to
    /// `false`: such a request may have been processed already.
    var retriesNonIdempotentRequests: Bool { get }
    /// The longest wait a `Retry-After` header may ask for; a longer one is cut to this. Defaults to 60 s.
    var maximumRetryAfter: TimeInterval { get }
}

extension NetworkResilience {
    /// `false`.
    public var retriesNonIdempotentRequests: Bool { false }
    /// 60 seconds.
    public var maximumRetryAfter: TimeInterval { 60 }
}

/// ProcedureKit's default resilience: 3 attempts, waits growing by 2 s (about 4 s, then 6 s), an 8 s limit per
/// attempt, and retries of 5xx, 408 (Request Timeout) and 429 (Too Many Requests).
public struct DefaultNetworkResilience: NetworkResilience {
    /// The most attempts.
    public var maximumNumberOfAttempts: Int
    /// The waits between attempts.
    public var backoffStrategy: WaitStrategy
    /// The time limit of each attempt.
    public var requestTimeout: TimeInterval?
    /// Whether requests that are not idempotent are retried after connection failures and most 5xx responses.
    public var retriesNonIdempotentRequests: Bool
    /// The longest wait a `Retry-After` header may ask for.
    public var maximumRetryAfter: TimeInterval

    /// Creates a resilience policy; the defaults are ProcedureKit's.
    public init(
        maximumNumberOfAttempts: Int = 3, backoffStrategy: WaitStrategy = .incrementing(initial: 2, increment: 2),
        requestTimeout: TimeInterval? = 8, retriesNonIdempotentRequests: Bool = false,
        maximumRetryAfter: TimeInterval = 60
    ) {
        self.maximumNumberOfAttempts = maximumNumberOfAttempts
        self.backoffStrategy = backoffStrategy
        self.requestTimeout = requestTimeout
        self.retriesNonIdempotentRequests = retriesNonIdempotentRequests
        self.maximumRetryAfter = maximumRetryAfter
    }

    /// `true` for 5xx, 408 and 429.
    public func shouldRetry(forResponseWithHTTPStatusCode statusCode: HTTPStatusCode) -> Bool {
        switch statusCode {
        case .requestTimeout, .tooManyRequests: true
        default: statusCode.isServerError
        }
    }
}
