import Foundation

/// What a ``RetryProcedure`` knows about an attempt that failed, handed to its retry handler.
public struct RetryFailureInfo<T: Procedure>: Sendable {
    /// The attempt that failed.
    public let operation: T
    /// The errors it is finishing with (after the retry's ``GroupProcedure/transformChildErrorBlock``).
    public let errors: [any Error]
    /// The number of attempts made so far, this one included.
    public let count: Int
    /// Adds operations to the retry, as children (ProcedureKit's `addOperations`): work the next attempt waits
    /// for, such as a token refresh, that the retry's cancellation then cancels too. Make the next attempt depend
    /// on them; add them only when the handler returns a payload.
    public let addOperations: @Sendable (Operation...) -> Void

    /// The first error.
    public var error: (any Error)? { errors.first }
}

/// A repeat that runs attempts until one succeeds: it stops at the first attempt that finishes without errors,
/// and otherwise takes the next attempt, waiting between them, until ``RepeatProcedure/max`` attempts have been
/// made, the iterator runs out or the retry handler says stop.
///
/// ```swift
/// let fetch = RetryProcedure(max: 3, wait: .exponential(power: 2, period: 0.5, maximum: 10)) {
///     FetchProcedure(url: url)
/// }
/// queue.add(procedure: fetch)
/// ```
///
/// Errors: a retry that ends with a successful attempt finishes without errors, whatever earlier attempts did.
/// When no further attempt is made after a failure, the retry finishes with that last attempt's errors only, as
/// ProcedureKit's does (its tests pin it). Every failed attempt's errors are kept, in order, in ``attemptErrors``,
/// and ``RepeatProcedure/count`` says how many attempts were made; giving up is logged with both. Errors of the
/// waits between attempts are not collected.
///
/// Threads: the iterator, the configure blocks and the retry handler run in the retry's event context,
/// serialized with its other events, while the failed attempt is finishing.
///
/// Cancellation: cancelling the retry cancels the running attempt and any pending wait, and makes no further
/// attempt; it finishes, cancelled, once they have finished.
open class RetryProcedure<T: Procedure>: RepeatProcedure<T>, @unchecked Sendable {
    // @unchecked Sendable: `retry` is immutable and Sendable; the superclasses guard their own state.

    /// Decides, after a failed attempt, whether to retry: returns the payload to run next (the one offered, or an
    /// adjusted one, for example with another delay), or `nil` to stop. Runs in the retry's event context.
    public typealias Handler = @Sendable (RetryFailureInfo<T>, RepeatProcedurePayload<T>) -> RepeatProcedurePayload<T>?

    private let retry: Handler
    private let failures = PKMutex<[[any Error]]>([])

    /// The errors of every attempt that failed, in order, the last one included: a retry that gave up after three
    /// attempts has three entries, one that succeeded at the third has two.
    public final var attemptErrors: [[any Error]] { failures.withLock { $0 } }

    /// Creates a retry taking its attempts and waits from `iterator`, with `retry` deciding after each failure.
    ///
    /// The first payload is taken now; its delay is not used.
    public init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, clock: any ProcedureClock = SystemClock(),
        iterator: some IteratorProtocol<RepeatProcedurePayload<T>>, retry: @escaping Handler = { $1 }
    ) {
        self.retry = retry
        super.init(dispatchQueue: dispatchQueue, max: max, clock: clock, iterator: iterator)
        name = "Retry<\(T.self)>"
    }

    /// Creates a retry of the attempts of `iterator`, waiting between them as `wait` says.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, wait: WaitStrategy = .immediate,
        clock: any ProcedureClock = SystemClock(), iterator: some IteratorProtocol<T>, retry: @escaping Handler = { $1 }
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, clock: clock,
            iterator: PayloadIterator(operations: iterator, delays: wait.makeDelayIterator()), retry: retry)
    }

    /// Creates a retry of the attempts of `iterator`, waiting before each the next value of `delay`.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, max: Int? = nil, delay: some IteratorProtocol<Delay>,
        clock: any ProcedureClock = SystemClock(), iterator: some IteratorProtocol<T>, retry: @escaping Handler = { $1 }
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, clock: clock,
            iterator: PayloadIterator(operations: iterator, delays: delay), retry: retry)
    }

    /// Creates a retry making at most `max` attempts, each returned by `body` (`nil` stops), waiting between
    /// them as `wait` says; `shouldRetry`, if given, may stop it after a failure.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, max: Int, wait: WaitStrategy = .immediate,
        clock: any ProcedureClock = SystemClock(), shouldRetry: (@Sendable (RetryFailureInfo<T>) -> Bool)? = nil,
        body: @escaping @Sendable () -> T?
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, wait: wait, clock: clock, iterator: ClosureIterator(body: body)
        ) { info, payload in
            shouldRetry?(info) ?? true ? payload : nil
        }
    }

    /// ProcedureKit's spelling: at most `max` attempts, each returned by `body`, waiting 0.2 s between them
    /// unless `wait` says otherwise. See ``init(dispatchQueue:max:wait:clock:shouldRetry:body:)``.
    public convenience init(
        dispatchQueue: DispatchQueue? = nil, upto max: Int, wait: WaitStrategy = .constant(0.2),
        clock: any ProcedureClock = SystemClock(), shouldRetry: (@Sendable (RetryFailureInfo<T>) -> Bool)? = nil,
        body: @escaping @Sendable () -> T?
    ) {
        self.init(
            dispatchQueue: dispatchQueue, max: max, wait: wait, clock: clock, shouldRetry: shouldRetry, body: body)
    }

    override func attemptWillFinish(_ attempt: T, withErrors errors: [any Error]) -> [any Error] {
        guard !errors.isEmpty else { return [] }  // success: no further attempt
        failures.withLock { $0.append(errors) }
        let info = RetryFailureInfo(operation: attempt, errors: errors, count: count) { [weak self] operations in
            self?.addChildren(operations)
        }
        let retrying = addNextOperation { [retry] payload in retry(info, payload) }
        if !retrying, !isCancelled {
            let earlier = attemptErrors.dropLast().map { $0.rootCauses.map { String(describing: $0) } }
            log.warning(
                "gave up after \(count) attempt(s): \(errors.rootCauses)"
                    + (earlier.isEmpty ? "" : "; earlier attempts: \(earlier)"))
        }
        return retrying ? [] : errors
    }

    override func otherChildWillFinish(_ child: Procedure, withErrors errors: [any Error]) -> [any Error] {
        []
    }
}
