import Synchronization

/// A procedure whose work is `async throws`: override ``run()``.
///
/// ```swift
/// final class FetchGreeting: AsyncProcedure, @unchecked Sendable {
///     override func run() async throws {
///         try await Task.sleep(for: .milliseconds(10))
///         log.info("fetched")
///     }
/// }
/// ```
///
/// `run()` executes in a new unstructured `Task`. Returning finishes the procedure; throwing finishes it with
/// the error. Cancelling the procedure cancels that Task (a `CancellationError` thrown because of it is not
/// recorded as an error: the procedure is already cancelled).
open class AsyncProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `task` guards itself (a Mutex inside); everything else is the superclass's.

    private let task = ClosureTask()

    /// Creates the procedure.
    public override init() {
        super.init()
    }

    /// The asynchronous work. The default does nothing.
    open func run() async throws {}

    /// Starts ``run()`` in a Task; do not override (override ``run()``).
    public final override func execute() {
        let body: @Sendable () async throws -> Void = { [self] in try await run() }
        task.start(for: self, body) { [self] result, becauseCancelled in
            if case .failure(let error) = result, !becauseCancelled {
                finish(with: error)
            } else {
                finish()
            }
        }
    }

    override func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {
        task.cancel()
    }
}

/// An ``AsyncProcedure`` that runs an `async throws` closure, or (ProcedureKit's form) a closure that calls a
/// completion handler.
///
/// ```swift
/// let greet = AsyncBlockProcedure { try await Task.sleep(for: .milliseconds(5)) }
/// try await queue.run(greet)
///
/// let legacy = AsyncBlockProcedure { finish in
///     client.send { error in finish(error.map { .failure($0) } ?? success) }
/// }
/// ```
///
/// The completion form finishes when the handler is first called (later calls are ignored), with the error of a
/// failure; it must call the handler on every path, including after the procedure is cancelled.
open class AsyncBlockProcedure: AsyncProcedure, @unchecked Sendable {
    // @unchecked Sendable: `block` is immutable and Sendable.

    /// The completion handler of the completion form.
    public typealias FinishingBlock = @Sendable (ProcedureResult<Void>) -> Void

    private let block: @Sendable () async throws -> Void

    /// Creates a procedure that runs `block`.
    public init(block: @escaping @Sendable () async throws -> Void) {
        self.block = block
        super.init()
    }

    /// Creates a procedure that runs `block`, which calls its completion handler, once, from any thread.
    public convenience init(block: @escaping @Sendable (@escaping FinishingBlock) -> Void) {
        self.init {
            let once = OnceFlag()
            try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
                block { result in
                    if once.claim() { continuation.resume(with: result) }
                }
            }
        }
    }

    /// Runs the block.
    open override func run() async throws {
        try await block()
    }
}
