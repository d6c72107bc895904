/// A type-erased ``OutputProcedure``: wraps any output procedure whose `Output` is `Output`.
///
/// ```swift
/// let source: AnyOutputProcedure<Int> = AnyOutputProcedure(ResultProcedure { 42 })
/// ```
///
/// Its ``output`` reads and writes the wrapped procedure's. Add the wrapper (not the wrapped procedure) to a
/// queue: when it executes it runs the wrapped procedure on a private queue and finishes when that one finishes,
/// with its errors (cancelled if it was cancelled). Cancelling the wrapper cancels the wrapped procedure.
public final class AnyOutputProcedure<Output>: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: no mutable state of its own (`wrapped` and the accessors are immutable and Sendable;
    // the wrapped procedure guards its own output); the superclass guards its state.

    private let wrapped: WrappedProcedure
    private let readOutput: @Sendable () -> Pending<ProcedureResult<Output>>
    private let writeOutput: @Sendable (Pending<ProcedureResult<Output>>) -> Void

    /// Wraps `base`, which must not be added to a queue itself.
    public init<Base: OutputProcedure>(_ base: Base) where Base.Output == Output {
        wrapped = WrappedProcedure(base: base)
        readOutput = { base.output }
        writeOutput = { base.output = $0 }
        super.init()
    }

    /// The wrapped procedure's output.
    public var output: Pending<ProcedureResult<Output>> {
        get { readOutput() }
        set { writeOutput(newValue) }
    }

    /// Runs the wrapped procedure.
    public override func execute() {
        wrapped.execute(for: self)
    }

    override func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {
        wrapped.wrapperWasCancelled(withErrors: errors)
    }
}
