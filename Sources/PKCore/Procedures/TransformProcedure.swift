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
    // @unchecked Sendable: `inputStorage` and `outputStorage` are guarded by their Mutexes (inside ValueStorage);
    // `transform` is immutable and Sendable; everything else is the superclass's.

    private let inputStorage = ValueStorage<Pending<Input>>(.pending)
    private let outputStorage = ValueStorage<Pending<ProcedureResult<Output>>>(.pending)
    private let transform: @Sendable (Input) throws -> Output

    /// Creates a procedure that outputs `transform(input)`.
    public init(transform: @escaping @Sendable (Input) throws -> Output) {
        self.transform = transform
        super.init()
    }

    /// The input: pending until injected or set.
    public final var input: Pending<Input> {
        get { inputStorage.value }
        set { inputStorage.value = newValue }
    }

    /// The output: pending until the procedure has executed.
    public final var output: Pending<ProcedureResult<Output>> {
        get { outputStorage.value }
        set { outputStorage.value = newValue }
    }

    /// Transforms the input and finishes with the result.
    open override func execute() {
        guard case .ready(let value) = input else {
            finish(withResult: .failure(ProcedureKitError.requirementNotSatisfied()))
            return
        }
        finish(withResult: Result { try transform(value) })
    }
}
