/// A procedure that needs an input value, which may be injected after it is created.
///
/// Conforming types store `input`, usually as `var input: Pending<Input> = .pending`. The injection APIs set it
/// before the procedure executes.
public protocol InputProcedure: Procedure {
    /// The type of the input.
    associatedtype Input
    /// The input; `.pending` until it is set.
    var input: Pending<Input> { get set }
}
