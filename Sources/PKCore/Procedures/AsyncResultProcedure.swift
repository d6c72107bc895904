/// A procedure that outputs a value produced asynchronously: by a closure that calls a completion handler, or
/// by an `async throws` closure.
///
/// ```swift
/// let fetch = AsyncResultProcedure<Int> { complete in
///     DispatchQueue.global().async { complete(.success(42)) }
/// }
/// let slow = AsyncResultProcedure { try await service.value() }
/// ```
///
/// The procedure finishes when the completion handler is first called (later calls are ignored), or when the
/// `async` closure returns or throws: a success sets ``output`` and finishes; a failure sets it and finishes with
/// the error. Cancelling the procedure does not interrupt a completion-handler block (which must still call the
/// handler), and cancels the Task running an `async` closure; a `CancellationError` thrown because of that
/// finishes the procedure without recording another error. There is no timeout.
open class AsyncResultProcedure<Output: Sendable>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `outputSlot` and `task` are guarded by their Mutexes (inside ErasedSlot and ClosureTask),
    // `completed` is a Mutex-guarded flag, `body` is immutable and Sendable; everything else is the superclass's.
    //
    // PERF(W26): the output is stored erased (see ErasedSlot).

    /// The completion handler given to the block.
    public typealias Completion = @Sendable (ProcedureResult<Output>) -> Void

    private enum Body {
        case callback(@Sendable (@escaping Completion) -> Void)
        case async(@Sendable () async throws -> Output)
    }

    private let body: Body
    @usableFromInline
    let outputSlot = ErasedSlot()
    private let task = ClosureTask()
    private let completed = OnceFlag()

    /// Creates a procedure whose `block` calls its completion handler, from any thread, with the result.
    ///
    /// `block` runs in the procedure's event context; it must call the handler on every path, including after
    /// the procedure is cancelled.
    public init(block: @escaping @Sendable (@escaping Completion) -> Void) {
        body = .callback(block)
        super.init()
    }

    /// Creates a procedure that runs `asyncBlock` in a new Task and outputs what it returns.
    ///
    /// Cancelling the procedure cancels the Task.
    public init(asyncBlock: @escaping @Sendable () async throws -> Output) {
        body = .async(asyncBlock)
        super.init()
    }

    /// The output: pending until the block completes.
    public final var output: Pending<ProcedureResult<Output>> {
        @inlinable get { outputSlot.output(as: Output.self) }
        set { outputSlot.setOutput(newValue) }
    }

    /// Starts the block.
    open override func execute() {
        switch body {
        case .callback(let block):
            block { [self] result in complete(with: result) }
        case .async(let block):
            task.start(for: self, block) { [self] result, becauseCancelled in
                complete(with: result, recordingError: !becauseCancelled)
            }
        }
    }

    override func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {
        task.cancel()
    }

    /// Sets the output and finishes, once: with the failure's error, unless `recordingError` is `false` (a
    /// `CancellationError` caused by cancelling the procedure).
    private func complete(with result: ProcedureResult<Output>, recordingError: Bool = true) {
        guard completed.claim() else {
            log.verbose("completion called again; ignored")
            return
        }
        if recordingError {
            finish(storing: result.erased, in: outputSlot)
        } else {
            outputSlot.store(result.erased)
            finish()
        }
    }
}
