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
    // @unchecked Sendable: `outputSlot`, `task` and `completed` are guarded by their Mutexes (inside ErasedSlot
    // and ClosureTask, and its own); `callback` and `asyncBlock` are immutable and Sendable; everything else is the
    // superclass's.
    //
    // PERF(W26): no field's type is built from `Output` (see ErasedSlot: the output is stored erased, and a
    // function type's layout does not depend on it), and the callback form allocates nothing beyond the procedure.

    /// The completion handler given to the block.
    public typealias Completion = @Sendable (ProcedureResult<Output>) -> Void

    /// The block, in the callback form.
    private let callback: (@Sendable (@escaping Completion) -> Void)?
    /// The block, in the async form.
    private let asyncBlock: (@Sendable () async throws -> Output)?
    @usableFromInline
    let outputSlot = ErasedSlot()
    /// The Task running `asyncBlock`; only the async form has one.
    private let task: ClosureTask?
    /// Whether the block completed (later completions are ignored).
    private let completed = PKMutex(false)

    /// Creates a procedure whose `block` calls its completion handler, from any thread, with the result.
    ///
    /// `block` runs in the procedure's event context; it must call the handler on every path, including after
    /// the procedure is cancelled.
    public init(block: @escaping @Sendable (@escaping Completion) -> Void) {
        callback = block
        asyncBlock = nil
        task = nil
        super.init()
    }

    /// Creates a procedure that runs `asyncBlock` in a new Task and outputs what it returns.
    ///
    /// Cancelling the procedure cancels the Task.
    public init(asyncBlock: @escaping @Sendable () async throws -> Output) {
        callback = nil
        self.asyncBlock = asyncBlock
        task = ClosureTask()
        super.init()
    }

    /// The output: pending until the block completes.
    public final var output: Pending<ProcedureResult<Output>> {
        @inlinable get { outputSlot.output(as: Output.self) }
        set { outputSlot.setOutput(newValue) }
    }

    /// Starts the block.
    open override func execute() {
        if let callback {
            callback { [self] result in complete(with: result) }
        } else if let asyncBlock, let task {
            task.start(for: self, asyncBlock) { [self] result, becauseCancelled in
                complete(with: result, recordingError: !becauseCancelled)
            }
        }
    }

    override func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {
        task?.cancel()
    }

    /// Sets the output and finishes, once: with the failure's error, unless `recordingError` is `false` (a
    /// `CancellationError` caused by cancelling the procedure).
    private func complete(with result: ProcedureResult<Output>, recordingError: Bool = true) {
        guard completed.claimOnce() else {
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
