/// A procedure that combines the elements of its input array into one value, starting from an initial value.
///
/// Behaves as a ``TransformProcedure``: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; a throwing closure finishes it with the thrown error.
open class ReduceProcedure<Element: Sendable, U: Sendable>: TransformProcedure<[Element], U>,
    @unchecked Sendable
{
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure that outputs `input.reduce(initial, nextPartialResult)`.
    public init(initial: U, nextPartialResult: @escaping @Sendable (U, Element) throws -> U) {
        super.init { elements in try elements.reduce(initial, nextPartialResult) }
    }

    /// Creates a procedure whose input is already `source`: it outputs `source.reduce(initial,
    /// nextPartialResult)`.
    public convenience init<S: Sequence>(
        source: S, initial: U, nextPartialResult: @escaping @Sendable (U, Element) throws -> U
    ) where S.Element == Element {
        self.init(initial: initial, nextPartialResult: nextPartialResult)
        input = .ready(Array(source))
    }
}
