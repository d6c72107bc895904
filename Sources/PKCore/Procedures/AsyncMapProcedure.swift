/// A procedure that applies an `async throws` closure to each element of its input array, one element at a time,
/// and outputs the results in order.
///
/// ```swift
/// let sizes = AsyncMapProcedure<URL, Int> { url in try await store.size(of: url) }
/// sizes.injectResult(from: listing)
/// ```
///
/// Behaves as an ``AsyncTransformProcedure`` with an `async` transform: a pending input finishes it with
/// ``ProcedureKitError/requirementNotSatisfied()``; a throwing closure finishes it with the thrown error; cancelling
/// it cancels the Task, and no further element is transformed.
open class AsyncMapProcedure<Element: Sendable, U: Sendable>: AsyncTransformProcedure<[Element], [U]>,
    @unchecked Sendable
{
    // @unchecked Sendable: no state of its own; the superclass guards its state.

    /// Creates a procedure that outputs its input's elements transformed by `transform`, in order.
    public init(transform: @escaping @Sendable (Element) async throws -> U) {
        super.init { (elements: [Element]) async throws -> [U] in
            var results: [U] = []
            results.reserveCapacity(elements.count)
            for element in elements {
                try Task.checkCancellation()
                results.append(try await transform(element))
            }
            return results
        }
    }

    /// Creates a procedure whose input is already `source`.
    public convenience init<S: Sequence>(source: S, transform: @escaping @Sendable (Element) async throws -> U)
    where S.Element == Element {
        self.init(transform: transform)
        input = .ready(Array(source))
    }
}
