extension Collection where Element: OutputProcedure, Element.Output: Sendable {

    /// A procedure that depends on every procedure in the collection and outputs their outputs, in collection
    /// order.
    ///
    /// The gathering procedure ends cancelled, without executing, under the same rules as
    /// ``InputProcedure/injectResult(from:)-4v0ci``: a cancelled element cancels it with
    /// ``ProcedureKitError/dependency(cancelledWithErrors:)`` (``ProcedureKitError/dependenciesCancelled()`` when
    /// it had no errors), a failed element (errors or a failure output) with
    /// ``ProcedureKitError/dependency(finishedWithErrors:)``, a pending output with
    /// ``ProcedureKitError/requirementNotSatisfied()``. (ProcedureKit 5 silently skipped such elements.)
    /// Add the elements and the gathering procedure to a queue.
    public func gathered() -> ResultProcedure<[Element.Output]> {
        combined(name: "Gathered") { $0 }
    }

    /// A procedure that depends on every procedure in the collection and outputs each one's result, in collection
    /// order: the value of each that succeeded, the error of each that failed or was cancelled.
    ///
    /// Unlike ``gathered()``, failed or cancelled elements do not cancel it: it always executes once they have all
    /// finished, and reads each result as ``ProcedureQueue/run(_:)->()`` would (`CancellationError` for a cancellation
    /// without errors, the error, a ``ProcedureKitError/Context/multipleErrors`` error for several, the output's
    /// error, or ``ProcedureKitError/requirementNotSatisfied()`` for an output still pending). Add the elements and
    /// the gathering procedure to a queue.
    ///
    /// ```swift
    /// let all = fetches.gatheredResults()
    /// queue.add(procedures: fetches + [all])
    /// ```
    public func gatheredResults() -> ResultProcedure<[ProcedureResult<Element.Output>]> {
        let elements = Array(self)
        let gathering = ResultProcedure<[ProcedureResult<Element.Output>]> {
            elements.map { $0.finishedOutputResult() }
        }
        gathering.name = "GatheredResults"
        for element in elements { gathering.addDependency(element) }
        return gathering
    }

    /// A procedure that depends on every procedure in the collection and outputs the non-`nil` results of
    /// `transform` applied to their outputs, in collection order.
    ///
    /// A throwing `transform` finishes it with the error; failed or cancelled elements cancel it, as
    /// ``gathered()`` describes.
    public func flatMap<T: Sendable>(
        transform: @escaping @Sendable (Element.Output) throws -> T?
    ) -> ResultProcedure<[T]> {
        combined(name: "FlatMap") { try $0.compactMap(transform) }
    }

    /// A procedure that depends on every procedure in the collection and outputs their outputs combined with
    /// `nextPartialResult`, starting from `initialResult`, in collection order.
    ///
    /// A throwing closure finishes it with the error; failed or cancelled elements cancel it, as ``gathered()``
    /// describes.
    public func reduce<Result: Sendable>(
        _ initialResult: Result, _ nextPartialResult: @escaping @Sendable (Result, Element.Output) throws -> Result
    ) -> ResultProcedure<Result> {
        combined(name: "Reduce") { try $0.reduce(initialResult, nextPartialResult) }
    }

    /// A procedure depending on every element that applies `combine` to their outputs, in order.
    private func combined<Value: Sendable>(
        name: String, _ combine: @escaping @Sendable ([Element.Output]) throws -> Value
    ) -> ResultProcedure<Value> {
        let elements = Array(self)
        let combining = ResultProcedure<Value> {
            let outputs = try elements.map { element in
                // The injection rules below have already checked every element; this only guards misuse.
                guard case .ready(.success(let value)) = element.output else {
                    throw ProcedureKitError.requirementNotSatisfied()
                }
                return value
            }
            return try combine(outputs)
        }
        combining.name = name
        for element in elements {
            combining.injectOutput(from: element) { _, _ in }
        }
        return combining
    }
}
