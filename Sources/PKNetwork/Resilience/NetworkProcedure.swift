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
/// - A status ``HTTPStatusCode`` does not name counts as the x00 code of its class (RFC 9110 §15): a 520 or a 599 is
///   retried like a 500, an unknown 4xx is treated like a 400.
/// - A connection-level failure (refused, reset, DNS, empty reply, a transfer cut short, a timeout) is retried, but
///   only for an idempotent request unless ``NetworkResilience/retriesNonIdempotentRequests`` is set; the same rule
///   holds for 5xx statuses other than 503. When the ``ConnectivityMonitor``'s provider then reports no network, the
///   next attempt waits for a ``NetworkReachabilityWaitProcedure`` instead of the backoff. An attempt that failed
///   for want of a network (Apple's "not connected" codes) always waits for it and is retried, whatever its method.
/// - An attempt that failed with another error is retried only when its response's status would be (with the
///   status rules above).
/// - Anything else stops: the procedure finishes with the attempt's outcome. A 404 is a success unless the attempt
///   validates its status (``NetworkDataProcedure/validate(statusCodes:)``), in which case it fails with an
///   ``HTTPStatusError`` carrying the status and body.
///
/// That policy is a ``NetworkRecovery``'s. Subclass it and pass it to ``init(dispatchQueue:recovery:clock:body:)``
/// to change what is retried (``NetworkRecovery/shouldRetry(givenNetworkResponse:)``) or to act between attempts
/// (``NetworkRecovery/recover(withInfo:payload:)``), for example to refresh a token after a 401.
///
/// Threads and cancellation are ``/PKCore/RetryProcedure``'s: cancelling it cancels the running attempt (and its
/// request) or the wait between attempts, and makes no further attempt.
open class NetworkProcedure<T: Procedure & NetworkOperation>: RetryProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: `recovery` is immutable and Sendable; the superclasses guard the rest.

    /// What decides, after each failed attempt, whether and when to try again.
    public let recovery: NetworkRecovery<T>
    /// The retry policy (the ``recovery``'s).
    public var resilience: any NetworkResilience { recovery.resilience }
    /// The connectivity a wait after a connection failure asks for (the ``recovery``'s).
    public var connectivity: NetworkConnectivity { recovery.connectivity }
    /// The monitor asked about connectivity after a connection failure (the ``recovery``'s).
    public var monitor: ConnectivityMonitor { recovery.monitor }

    /// Creates a network procedure whose attempts `iterator` makes (running out stops), and which `recovery`
    /// decides, after each failure, whether to retry: ProcedureKit's `init(dispatchQueue:recovery:iterator:)`.
    ///
    /// The first attempt is taken now. `clock` measures the waits between attempts and the per-attempt timeouts.
    public init(
        dispatchQueue: DispatchQueue? = nil, recovery: NetworkRecovery<T>, clock: any ProcedureClock = SystemClock(),
        iterator: some IteratorProtocol<T>
    ) {
        self.recovery = recovery
        let resilience = recovery.resilience
        let holder = RecoveryTarget<T>()
        super.init(
            dispatchQueue: dispatchQueue, max: Swift.max(1, resilience.maximumNumberOfAttempts), clock: clock,
            iterator: AttemptIterator(attempts: iterator, waits: resilience.backoffStrategy.makeIterator())
        ) { info, payload in
            guard let procedure = holder.procedure else { return nil }
            let next = recovery.recover(withInfo: info, payload: payload, for: procedure)
            // Retried, the failed attempt's downloaded file (a retried status still downloads the body) is nobody's:
            // it is not the procedure's output, and the next attempt downloads its own. The last attempt's stays,
            // with its output, for the caller.
            if next != nil, let download = info.operation as? NetworkDownloadProcedure,
                let file = download.output.success?.payload
            {
                try? FileManager.default.removeItem(at: file)
            }
            return next
        }
        holder.set(self)
        name = "NetworkProcedure<\(T.self)>"
        if let timeout = resilience.requestTimeout, timeout > 0 {
            appendConfigureBlock { attempt in attempt.addObserver(TimeoutObserver(by: timeout, clock: clock)) }
        }
    }

    /// Creates a network procedure whose attempts `body` makes (returning `nil` stops), and which `recovery`
    /// decides, after each failure, whether to retry.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, recovery: NetworkRecovery<T>, clock: any ProcedureClock = SystemClock(),
        body: @escaping @Sendable () -> T?
    ) {
        self.init(dispatchQueue: dispatchQueue, recovery: recovery, clock: clock, iterator: BodyIterator(body: body))
    }

    /// Creates a network procedure whose attempts `iterator` makes (running out stops), retried as `resilience`
    /// says, waiting for `connectivity` through `monitor` when the network is down: ProcedureKit's
    /// `init(dispatchQueue:resilience:connectivity:iterator:)`.
    ///
    /// `clock` measures the waits between attempts and the per-attempt timeouts.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, resilience: any NetworkResilience = DefaultNetworkResilience(),
        connectivity: NetworkConnectivity = .any, monitor: ConnectivityMonitor = .shared,
        clock: any ProcedureClock = SystemClock(), iterator: some IteratorProtocol<T>
    ) {
        self.init(
            dispatchQueue: dispatchQueue,
            recovery: NetworkRecovery(resilience: resilience, connectivity: connectivity, monitor: monitor),
            clock: clock, iterator: iterator)
    }

    /// Creates a network procedure whose attempts `body` makes (returning `nil` stops), retried as `resilience`
    /// says, waiting for `connectivity` through `monitor` when the network is down.
    ///
    /// `clock` measures the waits between attempts and the per-attempt timeouts.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, resilience: any NetworkResilience = DefaultNetworkResilience(),
        connectivity: NetworkConnectivity = .any, monitor: ConnectivityMonitor = .shared,
        clock: any ProcedureClock = SystemClock(), body: @escaping @Sendable () -> T?
    ) {
        self.init(
            dispatchQueue: dispatchQueue,
            recovery: NetworkRecovery(resilience: resilience, connectivity: connectivity, monitor: monitor),
            clock: clock, iterator: BodyIterator(body: body))
    }

    /// Turns a status the ``recovery`` would retry (``NetworkRecovery/shouldRetry(givenNetworkResponse:)``) into an
    /// error, so that the retry sees a failed attempt, then goes on as ``/PKCore/RetryProcedure`` does.
    open override func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        var errors = errors
        // An unnamed status counts as its class's x00 code (RFC 9110 §15): a 520 is retried, and reported, as a 500.
        if errors.isEmpty, let attempt = child as? T, attempt === current,
            let code = attempt.urlResponse.flatMap({ HTTPStatusCode.equivalent(to: $0.statusCode) }),
            recovery.shouldRetry(givenNetworkResponse: ProcedureKitNetworkResponse(response: attempt.urlResponse))
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

/// The attempts an iterator makes, each with the backoff's next wait.
struct AttemptIterator<Attempts: IteratorProtocol>: IteratorProtocol where Attempts.Element: Operation {
    var attempts: Attempts
    var waits: WaitStrategy.Iterator

    mutating func next() -> RepeatProcedurePayload<Attempts.Element>? {
        guard let operation = attempts.next() else { return nil }
        return RepeatProcedurePayload(operation: operation, delay: waits.next().map { .by($0) })
    }
}

/// The attempts `body` makes, until it returns `nil`.
struct BodyIterator<T>: IteratorProtocol {
    let body: @Sendable () -> T?

    func next() -> T? { body() }
}
