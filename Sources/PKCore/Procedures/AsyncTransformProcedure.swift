/// A procedure that transforms its injected ``input`` into its ``output`` asynchronously: with an `async throws`
/// closure, or (ProcedureKit's form) with a closure that calls a completion handler.
///
/// ```swift
/// let double = AsyncTransformProcedure<[Int], [Int]> { input in
///     try await Task.sleep(for: .milliseconds(5))
///     return input.map { $0 * 2 }
/// }
/// let lookUp = AsyncTransformProcedure<String, Int> { name, complete in
///     directory.find(name) { complete($0) }
/// }
/// ```
///
/// The `async` closure runs in a new Task when the procedure executes; returning sets the output and finishes,
/// throwing finishes with the error. Cancelling the procedure cancels that Task (a `CancellationError` thrown
/// because of it finishes the procedure without recording another error).
///
/// The completion form's transform runs in the procedure's event context; the procedure finishes when the
/// handler is first called, from any thread (later calls are ignored). Cancelling the procedure does not interrupt
/// it, so it must still call the handler. There is no timeout in either form.
///
/// An input still pending when the procedure executes finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()`` without calling the transform.
open class AsyncTransformProcedure<Input: Sendable, Output: Sendable>:
    Procedure, InputProcedure, OutputProcedure, @unchecked Sendable
{
    // @unchecked Sendable: `inputSlot`, `outputSlot`, `task` and `completed` are guarded by their Mutexes (inside
    // ErasedSlot and ClosureTask, and its own); `callback` and `asyncTransform` are immutable and Sendable;
    // everything else is the superclass's.
    //
    // PERF(W26): no field's type is built from `Input` or `Output` (see ErasedSlot), and the callback form
    // allocates nothing beyond the procedure.

    /// The completion handler given to the transform.
    public typealias Completion = @Sendable (ProcedureResult<Output>) -> Void

    @usableFromInline
    let inputSlot = ErasedSlot()
    @usableFromInline
    let outputSlot = ErasedSlot()
    /// Whether the transform completed (later completions are ignored).
    private let completed = PKMutex(false)
    /// The Task running `asyncTransform`; only the async form has one.
    private let task: ClosureTask?
    /// The transform, in the callback form.
    private let callback: (@Sendable (Input, @escaping Completion) -> Void)?
    /// The transform, in the async form.
    private let asyncTransform: (@Sendable (Input) async throws -> Output)?

    /// Creates a procedure whose `transform` calls its completion handler with the output for the input.
    public init(transform: @escaping @Sendable (Input, @escaping Completion) -> Void) {
        callback = transform
        asyncTransform = nil
        task = nil
        super.init()
    }

    /// Creates a procedure that runs `transform` on the input in a new Task and outputs what it returns.
    ///
    /// Cancelling the procedure cancels the Task.
    public init(transform: @escaping @Sendable (Input) async throws -> Output) {
        callback = nil
        asyncTransform = transform
        task = ClosureTask()
        super.init()
    }

    /// The input: pending until injected or set.
    public final var input: Pending<Input> {
        @inlinable get { inputSlot.input(as: Input.self) }
        set { inputSlot.setInput(newValue) }
    }

    /// The output: pending until the transform completes.
    public final var output: Pending<ProcedureResult<Output>> {
        @inlinable get { outputSlot.output(as: Output.self) }
        set { outputSlot.setOutput(newValue) }
    }

    /// Starts the transform.
    open override func execute() {
        guard case .success(let erasedInput) = inputSlot.erased else {
            complete(with: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        let value = ErasedSlot.cast(erasedInput, to: Input.self)
        if let callback {
            callback(value) { [self] result in complete(with: result) }
        } else if let asyncTransform, let task {
            let body: @Sendable () async throws -> Output = { try await asyncTransform(value) }
            task.start(for: self, body) { [self] result, becauseCancelled in
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
