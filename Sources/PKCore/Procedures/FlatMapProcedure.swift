/// A procedure that applies a closure to each element of its input array and outputs the non-`nil` results, in
/// order (ProcedureKit's `flatMap`; Swift's `compactMap`).
///
/// Behaves as a ``TransformProcedure``: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; a throwing closure finishes it with the thrown error.
open class FlatMapProcedure<Element: Sendable, U: Sendable>: TransformProcedure<[Element], [U]>,
    @unchecked Sendable
{
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure that outputs `input.compactMap(transform)`.
    public init(transform: @escaping @Sendable (Element) throws -> U?) {
        super.init { elements in try elements.compactMap(transform) }
    }

    /// Creates a procedure whose input is already `source`: it outputs `source.compactMap(transform)`.
    public convenience init<S: Sequence>(source: S, transform: @escaping @Sendable (Element) throws -> U?)
    where S.Element == Element {
        self.init(transform: transform)
        input = .ready(Array(source))
    }
}
