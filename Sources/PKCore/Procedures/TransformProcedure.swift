/// A procedure that transforms its injected ``input`` into its ``output`` with a throwing closure.
///
/// ```swift
/// let double = TransformProcedure { (value: Int) in value * 2 }
/// double.injectResult(from: fetchNumber)
/// queue.add(procedures: fetchNumber, double)
/// ```
///
/// The transform runs synchronously in the procedure's event context when it executes. An input still pending
/// then finishes the procedure with ``ProcedureKitError/requirementNotSatisfied()`` (and that failure as its
/// output); a throwing transform finishes it with the thrown error. A procedure cancelled before it executes
/// never runs its transform. ``MapProcedure``, ``FlatMapProcedure``, ``FilterProcedure``, ``ReduceProcedure``
/// and the JSON procedures are built on it.
open class TransformProcedure<Input: Sendable, Output: Sendable>:
    Procedure, InputProcedure, OutputProcedure, @unchecked Sendable
{
    // @unchecked Sendable: `inputSlot` and `outputSlot` are guarded by their PKMutexes; `transform` is immutable
    // and Sendable; everything else is the superclass's.
    //
    // PERF(W26): the input and output are stored erased (see ErasedSlot), and `execute()` never builds a
    // `Pending` of either type, so running one costs no generic-metadata lookup.

    @usableFromInline
    let inputSlot = ErasedSlot()
    @usableFromInline
    let outputSlot = ErasedSlot()
    private let transform: @Sendable (Input) throws -> Output

    /// Creates a procedure that outputs `transform(input)`.
    public init(transform: @escaping @Sendable (Input) throws -> Output) {
        self.transform = transform
        super.init()
    }

    /// The input: pending until injected or set.
    public final var input: Pending<Input> {
        @inlinable get { inputSlot.input(as: Input.self) }
        set { inputSlot.setInput(newValue) }
    }

    /// The output: pending until the procedure has executed.
    public final var output: Pending<ProcedureResult<Output>> {
        @inlinable get { outputSlot.output(as: Output.self) }
        set { outputSlot.setOutput(newValue) }
    }

    /// Transforms the input and finishes with the result.
    open override func execute() {
        guard case .success(let erasedInput) = inputSlot.erased else {
            finish(storing: .failure(ProcedureKitError.requirementNotSatisfied()), in: outputSlot)
            return
        }
        let result: ErasedPending
        do {
            result = .success(try transform(ErasedSlot.cast(erasedInput, to: Input.self)))
        } catch {
            result = .failure(error)
        }
        finish(storing: result, in: outputSlot)
    }
}
