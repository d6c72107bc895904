/// A procedure that outputs the elements of its input array for which a closure returns `true`, in order.
///
/// Behaves as a ``TransformProcedure``: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; a throwing closure finishes it with the thrown error.
open class FilterProcedure<Element: Sendable>: TransformProcedure<[Element], [Element]>,
    @unchecked Sendable
{
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure that outputs `input.filter(isIncluded)`.
    public init(isIncluded: @escaping @Sendable (Element) throws -> Bool) {
        super.init { elements in try elements.filter(isIncluded) }
    }

    /// Creates a procedure whose input is already `source`: it outputs `source.filter(isIncluded)`.
    public convenience init<S: Sequence>(source: S, isIncluded: @escaping @Sendable (Element) throws -> Bool)
    where S.Element == Element {
        self.init(isIncluded: isIncluded)
        input = .ready(Array(source))
    }
}
