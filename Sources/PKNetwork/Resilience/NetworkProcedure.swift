import Foundation
import PKObservers

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Retries a network procedure as a ``NetworkResilience`` says: ProcedureKit's `NetworkProcedure`.
///
/// ```swift
/// let fetch = NetworkProcedure(resilience: DefaultNetworkResilience(requestTimeout: 10)) {
///     NetworkDataProcedure(session: session, request: URLRequest(url: url)).validate()
/// }
/// let response = try await queue.run(fetch)
/// ```
///
/// Each attempt gets a `TimeoutObserver` for ``NetworkResilience/requestTimeout``. After an attempt:
/// - A response whose status ``NetworkResilience/shouldRetry(forResponseWithHTTPStatusCode:)`` accepts (5xx, 408,
///   429 by default) is retried, after the backoff's next wait or, for 429 and 503, the `Retry-After` the server
///   sent (capped at ``NetworkResilience/maximumRetryAfter``). When attempts run out, the procedure fails with
///   ``ProcedureKitNetworkResiliencyError/receivedErrorStatusCode(_:)`` (or the attempt's ``HTTPStatusError`` if
///   it validates).
/// - A connection-level failure (refused, reset, DNS, empty reply, a transfer cut short, a timeout) is retried, but
///   only for an idempotent request unless ``NetworkResilience/retriesNonIdempotentRequests`` is set; the same rule
///   holds for 5xx statuses other than 503. When the ``ConnectivityMonitor``'s provider then reports no network, the
///   next attempt waits for a ``NetworkReachabilityWaitProcedure`` instead of the backoff.
/// - Anything else stops: the procedure finishes with the attempt's outcome. A 404 is a success unless the attempt
///   validates its status (``NetworkDataProcedure/validate(statusCodes:)``), in which case it fails with an
///   ``HTTPStatusError`` carrying the status and body.
///
/// Threads and cancellation are ``PKCore/RetryProcedure``'s: cancelling it cancels the running attempt (and its
/// request) or the wait between attempts, and makes no further attempt.
open class NetworkProcedure<T: Procedure & NetworkOperation>: RetryProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: `resilience` and `monitor` are immutable and Sendable; the superclasses guard the rest.

    /// The retry policy.
    public let resilience: any NetworkResilience
    /// The connectivity a wait after a connection failure asks for.
    public let connectivity: NetworkConnectivity
    /// The monitor asked about connectivity after a connection failure.
    public let monitor: ConnectivityMonitor

    /// Creates a network procedure whose attempts `body` makes (returning `nil` stops).
    ///
    /// `clock` measures the waits between attempts and the per-attempt timeouts.
    public init(
        dispatchQueue: DispatchQueue? = nil, resilience: any NetworkResilience = DefaultNetworkResilience(),
        connectivity: NetworkConnectivity = .any, monitor: ConnectivityMonitor = .shared,
        clock: any ProcedureClock = SystemClock(), body: @escaping @Sendable () -> T?
    ) {
        self.resilience = resilience
        self.connectivity = connectivity
        self.monitor = monitor
        let recovery = NetworkRecovery<T>(resilience: resilience, connectivity: connectivity, monitor: monitor)
        let holder = RecoveryTarget<T>()
        super.init(
            dispatchQueue: dispatchQueue, max: Swift.max(1, resilience.maximumNumberOfAttempts), clock: clock,
            iterator: AttemptIterator(body: body, waits: resilience.backoffStrategy.makeIterator())
        ) { info, payload in
            recovery.recover(info, payload, target: holder)
        }
        holder.set(self)
        name = "NetworkProcedure<\(T.self)>"
        if let timeout = resilience.requestTimeout, timeout > 0 {
            appendConfigureBlock { attempt in attempt.addObserver(TimeoutObserver(by: timeout, clock: clock)) }
        }
    }

    /// Turns a retryable status into an error, so that the retry sees a failed attempt, then goes on as
    /// ``PKCore/RetryProcedure`` does.
    open override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        var errors = errors
        if errors.isEmpty, let attempt = child as? T, attempt === current, let code = attempt.urlResponse?.code,
            resilience.shouldRetry(forResponseWithHTTPStatusCode: code)
        {
            errors = [ProcedureKitNetworkResiliencyError.receivedErrorStatusCode(code)]
        }
        super.child(child, willFinishWithErrors: errors)
    }
}

/// A weak reference to the network procedure, for its recovery handler (which the procedure itself holds).
final class RecoveryTarget<T: Procedure & NetworkOperation>: Sendable {
    private struct Reference {
        weak var procedure: NetworkProcedure<T>?
    }

    private let reference = PKMutex(Reference())

    var procedure: NetworkProcedure<T>? { reference.withLock { $0.procedure } }

    func set(_ procedure: NetworkProcedure<T>) { reference.withLock { $0.procedure = procedure } }
}

/// The attempts `body` makes, each with the backoff's next wait.
struct AttemptIterator<T: Operation>: IteratorProtocol, Sendable {
    let body: @Sendable () -> T?
    var waits: WaitStrategy.Iterator

    mutating func next() -> RepeatProcedurePayload<T>? {
        guard let operation = body() else { return nil }
        return RepeatProcedurePayload(operation: operation, delay: waits.next().map { .by($0) })
    }
}
