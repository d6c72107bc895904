/// A type-erased ``InputProcedure``: wraps any input procedure whose `Input` is `Input`.
///
/// Its ``input`` reads and writes the wrapped procedure's, so injecting into the wrapper injects into the
/// wrapped procedure. Add the wrapper (not the wrapped procedure) to a queue: when it executes it runs the
/// wrapped procedure on a private queue and finishes when that one finishes, with its errors (cancelled if it
/// was cancelled). Cancelling the wrapper cancels the wrapped procedure.
public final class AnyInputProcedure<Input>: Procedure, InputProcedure, @unchecked Sendable {
    // @unchecked Sendable: no mutable state of its own (`wrapped` and the accessors are immutable and Sendable;
    // the wrapped procedure guards its own input); the superclass guards its state.

    private let wrapped: WrappedProcedure
    private let readInput: @Sendable () -> Pending<Input>
    private let writeInput: @Sendable (Pending<Input>) -> Void

    /// Wraps `base`, which must not be added to a queue itself.
    public init<Base: InputProcedure>(_ base: Base) where Base.Input == Input {
        wrapped = WrappedProcedure(base: base)
        readInput = { base.input }
        writeInput = { base.input = $0 }
        super.init()
    }

    /// The wrapped procedure's input.
    public var input: Pending<Input> {
        get { readInput() }
        set { writeInput(newValue) }
    }

    /// Runs the wrapped procedure.
    public override func execute() {
        wrapped.execute(for: self)
    }

    override func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {
        wrapped.wrapperWasCancelled(withErrors: errors)
    }
}
