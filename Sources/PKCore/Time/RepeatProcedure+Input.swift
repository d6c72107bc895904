extension RepeatProcedure: InputProcedure where T: InputProcedure {
    /// The latest operation's input. Setting it (for example by injection, before the repeat executes) sets the
    /// current operation's input and that of every operation the repeat takes afterwards, so each repetition (or
    /// each attempt of a ``RetryProcedure``) receives the injected value.
    public var input: Pending<T.Input> {
        get { current?.input ?? .pending }
        set {
            current?.input = newValue
            let forwarded = ForwardedInput(newValue)
            appendConfigureBlock { $0.input = forwarded.value }
        }
    }
}

/// An input a repeat hands to each later operation, so the configure block that applies it can be `@Sendable`
/// whatever the input type.
///
/// The value is written once, at init, and only read afterwards, by the repeat's configure blocks, which run in
/// the repeat's event context one at a time; handing it to each operation is the same transfer `input` makes
/// for any procedure.
final class ForwardedInput<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is immutable; the input type itself need not be Sendable (InputProcedure does
    // not require it), and each copy is handed to one operation in the repeat's event context.
    let value: Pending<Value>

    init(_ value: Pending<Value>) {
        self.value = value
    }
}
