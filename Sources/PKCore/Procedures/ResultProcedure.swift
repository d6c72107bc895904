/// A procedure that outputs the value its closure returns, or the error it throws.
///
/// ```swift
/// let answer = try await queue.run(ResultProcedure { 42 })
/// ```
///
/// The block runs synchronously in the procedure's event context on the queue's dispatch queue. Returning sets
/// ``output`` to `.success` and finishes; throwing sets it to `.failure` and finishes with the error. A procedure
/// cancelled before it executes never runs its block and its output stays pending. The block is released once
/// it has run. There is no timeout.
open class ResultProcedure<Output: Sendable>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `outputSlot` and `body` are guarded by their own PKMutexes; everything else is the
    // superclass's.
    //
    // PERF(W26): neither field has a type built from `Output`, whose metadata the runtime would look up each time
    // unspecialised code creates, copies or destroys it (see ErasedSlot): the output is stored erased, and the
    // block is wrapped at init in a closure that returns it erased.

    private typealias Body = @Sendable (Procedure) -> ErasedPending

    @usableFromInline
    let outputSlot = ErasedSlot()
    private let body: PKMutex<Body?>

    /// Creates a procedure that outputs what `block` returns.
    public init(block: @escaping @Sendable () throws -> Output) {
        body = PKMutex({ _ in
            do {
                return .success(try block())
            } catch {
                return .failure(error)
            }
        })
        super.init()
    }

    /// Creates a procedure that outputs what `block`, given the procedure itself, returns (ProcedureKit's
    /// `ThrowingOutputBlock` form).
    public init(block: @escaping @Sendable (ResultProcedure<Output>) throws -> Output) {
        body = PKMutex({ procedure in
            do {
                // Only this procedure's execute() calls its body, with itself.
                return .success(try block(unsafeDowncast(procedure, to: ResultProcedure<Output>.self)))
            } catch {
                return .failure(error)
            }
        })
        super.init()
    }

    /// The output: pending until the block has run.
    public final var output: Pending<ProcedureResult<Output>> {
        @inlinable get { outputSlot.output(as: Output.self) }
        set { outputSlot.setOutput(newValue) }
    }

    /// Runs the block and finishes with its result.
    open override func execute() {
        // Taken out, so the block (and what it captured) is released once it has run.
        guard let body = body.withLock({ replaceValue(&$0, with: nil) }) else {
            let error = ProcedureKitError.programmingError(reason: "\(procedureName) ran twice")
            finish(storing: .failure(error), in: outputSlot)
            return
        }
        finish(storing: body(self), in: outputSlot)
    }
}
