/// A procedure that applies a closure to each element of its input array and outputs the results, in order.
///
/// Create one directly and inject an `[Element]`, or call `map(transform:)` on a procedure whose output is a
/// sequence. Behaves as a ``TransformProcedure``: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; a throwing closure finishes it with the thrown error.
open class MapProcedure<Element: Sendable, U: Sendable>: TransformProcedure<[Element], [U]>,
    @unchecked Sendable
{
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure that outputs `input.map(transform)`.
    public init(transform: @escaping @Sendable (Element) throws -> U) {
        super.init { elements in try elements.map(transform) }
    }

    /// Creates a procedure whose input is already `source`: it outputs `source.map(transform)`.
    public convenience init<S: Sequence>(source: S, transform: @escaping @Sendable (Element) throws -> U)
    where S.Element == Element {
        self.init(transform: transform)
        input = .ready(Array(source))
    }
}
