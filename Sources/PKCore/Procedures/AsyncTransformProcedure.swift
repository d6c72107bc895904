/// A procedure that transforms its injected ``input`` into its ``output`` asynchronously: the transform calls a
/// completion handler with the result.
///
/// ```swift
/// let lookUp = AsyncTransformProcedure<String, Int> { name, complete in
///     directory.find(name) { complete($0) }
/// }
/// ```
///
/// The transform runs in the procedure's event context when it executes; the procedure finishes when the
/// handler is first called, from any thread (later calls are ignored). An input still pending then finishes the
/// procedure with ``ProcedureKitError/requirementNotSatisfied()`` without calling the transform. Cancelling the
/// procedure does not interrupt the transform, which must still call the handler. There is no timeout.
open class AsyncTransformProcedure<Input: Sendable, Output: Sendable>:
    Procedure, InputProcedure, OutputProcedure, @unchecked Sendable
{
    // @unchecked Sendable: `inputStorage` and `outputStorage` are guarded by their Mutexes (inside ValueStorage),
    // `completed` is a Mutex-guarded flag, `transform` is immutable and Sendable; everything else is the
    // superclass's.

    /// The completion handler given to the transform.
    public typealias Completion = @Sendable (ProcedureResult<Output>) -> Void

    private let inputStorage = ValueStorage<Pending<Input>>(.pending)
    private let outputStorage = ValueStorage<Pending<ProcedureResult<Output>>>(.pending)
    private let completed = OnceFlag()
    private let transform: @Sendable (Input, @escaping Completion) -> Void

    /// Creates a procedure whose `transform` calls its completion handler with the output for the input.
    public init(transform: @escaping @Sendable (Input, @escaping Completion) -> Void) {
        self.transform = transform
        super.init()
    }

    /// The input: pending until injected or set.
    public var input: Pending<Input> {
        get { inputStorage.value }
        set { inputStorage.value = newValue }
    }

    /// The output: pending until the transform completes.
    public var output: Pending<ProcedureResult<Output>> {
        get { outputStorage.value }
        set { outputStorage.value = newValue }
    }

    /// Starts the transform.
    open override func execute() {
        guard case .ready(let value) = input else {
            complete(with: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        transform(value) { [self] result in complete(with: result) }
    }

    private func complete(with result: ProcedureResult<Output>) {
        guard completed.claim() else {
            log.verbose("completion called again; ignored")
            return
        }
        finish(withResult: result)
    }
}
