/// A type-erased procedure with both an input and an output: wraps any procedure that is an
/// ``InputProcedure`` with `Input` and an ``OutputProcedure`` with `Output`.
///
/// Its ``input`` and ``output`` read and write the wrapped procedure's. Add the wrapper (not the wrapped
/// procedure) to a queue: when it executes it runs the wrapped procedure on a private queue and finishes when
/// that one finishes, with its errors (cancelled if it was cancelled). Cancelling the wrapper cancels the
/// wrapped procedure.
public final class AnyProcedure<Input, Output>: Procedure, InputProcedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: no mutable state of its own (`wrapped` and the accessors are immutable and Sendable;
    // the wrapped procedure guards its own input and output); the superclass guards its state.

    private let wrapped: WrappedProcedure
    private let readInput: @Sendable () -> Pending<Input>
    private let writeInput: @Sendable (Pending<Input>) -> Void
    private let readOutput: @Sendable () -> Pending<ProcedureResult<Output>>
    private let writeOutput: @Sendable (Pending<ProcedureResult<Output>>) -> Void

    /// Wraps `base`, which must not be added to a queue itself.
    public init<Base: InputProcedure & OutputProcedure>(_ base: Base)
    where Base.Input == Input, Base.Output == Output {
        wrapped = WrappedProcedure(base: base)
        readInput = { base.input }
        writeInput = { base.input = $0 }
        readOutput = { base.output }
        writeOutput = { base.output = $0 }
        super.init()
    }

    /// The wrapped procedure's input.
    public var input: Pending<Input> {
        get { readInput() }
        set { writeInput(newValue) }
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
