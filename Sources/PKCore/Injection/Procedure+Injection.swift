import Foundation

// Result injection: a procedure receives what another produced, after that one has finished and before it
// executes itself.
//
// Every API here works the same way. The dependency is added as an ordinary dependency of the receiver, and a
// WillExecute observer on the receiver does the injection. By the time the receiver's WillExecute observers run,
// the dependency has finished (its output and errors are final), and the receiver has not executed yet. A
// receiver cancelled from that observer skips `execute()` and finishes cancelled. Nothing is attached to the
// dependency, so nothing keeps the receiver alive: the observer, and what it captured, are released when the
// receiver finishes.

extension ProcedureProtocol where Self: Procedure {

    /// Makes `dependency` a dependency of this procedure and, once it has finished, calls
    /// `block(self, dependency)` before this procedure executes.
    ///
    /// - When `dependency` was cancelled, this procedure is cancelled with
    ///   ``ProcedureKitError/dependency(cancelledWithErrors:)`` wrapping its errors
    ///   (``ProcedureKitError/dependenciesCancelled()`` when it had none), and `block` is not called.
    /// - When it finished with errors, this procedure is cancelled with
    ///   ``ProcedureKitError/dependency(finishedWithErrors:)`` wrapping them, and `block` is not called.
    /// - When `block` throws, this procedure is cancelled with the thrown error.
    ///
    /// `block` runs in this procedure's event context (as a WillExecute observer), never concurrently with its
    /// other events; it should be quick. It is not called when this procedure is cancelled before it starts.
    /// Injecting a procedure into itself is a programming error: it logs a warning and cancels this procedure
    /// with ``ProcedureKitError/Context/programmingError(_:)``.
    ///
    /// Returns this procedure, so that calls chain.
    @discardableResult
    public func inject<Dependency: Procedure>(
        dependency: Dependency, block: @escaping @Sendable (Self, Dependency) throws -> Void
    ) -> Self {
        guard dependency !== self else {
            rejectSelfInjection()
            return self
        }
        addDependency(dependency)
        addWillExecuteBlockObserver { receiver, _ in
            receiver.performInjection(from: dependency) { try block(receiver, dependency) }
        }
        return self
    }

    /// ProcedureKit's form: makes `dependency` a dependency of this procedure and, once it has finished, calls
    /// `block(self, dependency, error)` before this procedure executes, with the dependency's first error (`nil`
    /// when it finished without errors), so that `block` decides what a failure means.
    ///
    /// When `dependency` was cancelled, this procedure is cancelled instead (as
    /// ``inject(dependency:block:)-(_,(Self,Dependency)->Void)`` does) and `block` is not called. `block` runs in
    /// this procedure's event context, before its `execute()`. Returns this procedure, so that calls chain.
    @discardableResult
    public func inject<Dependency: Procedure>(
        dependency: Dependency, block: @escaping @Sendable (Self, Dependency, (any Error)?) -> Void
    ) -> Self {
        guard dependency !== self else {
            rejectSelfInjection()
            return self
        }
        addDependency(dependency)
        addWillExecuteBlockObserver { receiver, _ in
            guard !receiver.isCancelled, receiver.dependencyHasFinished(dependency) else { return }
            if dependency.isCancelled {
                receiver.cancel(with: Self.cancelledDependencyError(dependency.errors))
            } else {
                block(receiver, dependency, dependency.error)
            }
        }
        return self
    }

    /// ProcedureKit's form: like ``inject(dependency:block:)-(_,(Self,Dependency)->Void)``, but hands `block` the
    /// dependency's successful output.
    ///
    /// Besides `inject`'s rules, an output that is a failure cancels this procedure with
    /// ``ProcedureKitError/dependency(finishedWithErrors:)`` wrapping the failure, and an output still pending
    /// when the dependency has finished cancels it with ``ProcedureKitError/requirementNotSatisfied()``.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(
        from dependency: Dependency, block: @escaping @Sendable (Self, Dependency.Output) -> Void
    ) -> Self {
        injectOutput(from: dependency) { receiver, output in block(receiver, output) }
    }

    /// Like ``Procedure/inject(dependency:block:)``, but hands `block` the dependency's successful output.
    ///
    /// Besides `inject`'s rules, an output that is a failure cancels this procedure with
    /// ``ProcedureKitError/dependency(finishedWithErrors:)`` wrapping the failure, and an output still pending
    /// when the dependency has finished cancels it with ``ProcedureKitError/requirementNotSatisfied()``.
    @discardableResult
    func injectOutput<Dependency: OutputProcedure>(
        from dependency: Dependency, block: @escaping @Sendable (Self, Dependency.Output) throws -> Void
    ) -> Self {
        inject(dependency: dependency) { receiver, dependency in
            switch dependency.output {
            case .ready(.success(let value)):
                try block(receiver, value)
            case .ready(.failure(let error)):
                throw ProcedureKitError.dependency(finishedWithErrors: [error])
            case .pending:
                throw ProcedureKitError.requirementNotSatisfied()
            }
        }
    }
}

extension Procedure {

    /// Applies the injection rules for a finished `dependency`, then runs `body`; cancels this procedure with
    /// the matching error instead when the dependency did not succeed or `body` throws.
    final func performInjection(from dependency: Procedure, _ body: () throws -> Void) {
        guard !isCancelled, dependencyHasFinished(dependency) else { return }
        let errors = dependency.errors
        if dependency.isCancelled {
            cancel(with: Self.cancelledDependencyError(errors))
        } else if !errors.isEmpty {
            cancel(with: ProcedureKitError.dependency(finishedWithErrors: errors))
        } else {
            do {
                try body()
            } catch {
                cancel(with: error)
            }
        }
    }

    /// Whether `dependency` has finished; otherwise (only possible when the dependency was removed again, or this
    /// procedure was started by hand) cancels this procedure with ``ProcedureKitError/requirementNotSatisfied()``.
    final func dependencyHasFinished(_ dependency: Procedure) -> Bool {
        guard !dependency.isFinished else { return true }
        log.warning("\(dependency.procedureName) had not finished when \(procedureName) was about to execute")
        cancel(with: ProcedureKitError.requirementNotSatisfied())
        return false
    }

    /// The error a receiver is cancelled with when its dependency was cancelled with `errors`.
    static func cancelledDependencyError(_ errors: [any Error]) -> ProcedureKitError {
        errors.isEmpty ? .dependenciesCancelled() : .dependency(cancelledWithErrors: errors)
    }

    /// Reports an attempt to inject this procedure into itself.
    final func rejectSelfInjection() {
        let reason = "\(procedureName) cannot have a result injected from itself"
        log.warning("\(reason); cancelling it")
        cancel(with: ProcedureKitError.programmingError(reason: reason))
    }
}

extension InputProcedure {

    /// Injects `dependency`'s output as this procedure's ``InputProcedure/input``, once `dependency` has
    /// finished and before this procedure executes.
    ///
    /// ```swift
    /// processLocation.injectResult(from: getLocation)
    /// queue.add(procedures: getLocation, processLocation)
    /// ```
    ///
    /// This procedure ends cancelled, without executing, when `dependency`:
    /// - was cancelled: ``ProcedureKitError/dependency(cancelledWithErrors:)`` wrapping its errors (none when it
    ///   was cancelled without errors);
    /// - finished with errors, or with a failure output: ``ProcedureKitError/dependency(finishedWithErrors:)``
    ///   wrapping them;
    /// - finished with its output still pending: ``ProcedureKitError/requirementNotSatisfied()``.
    ///
    /// The input is set in this procedure's event context (a WillExecute observer). Procedures bound with
    /// ``bind(to:)`` receive it too. Returns this procedure, so that calls chain.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(from dependency: Dependency) -> Self
    where Dependency.Output == Input {
        injectResult(from: dependency) { $0 }
    }

    /// Injects `dependency`'s optional output as this procedure's ``InputProcedure/input``; a `nil` output cancels
    /// this procedure with ``ProcedureKitError/requirementNotSatisfied()``. The other outcomes are those of
    /// ``InputProcedure/injectResult(from:)-4v0ci``.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(from dependency: Dependency) -> Self
    where Dependency.Output == Input? {
        injectResult(from: dependency) { output in
            guard let output else { throw ProcedureKitError.requirementNotSatisfied() }
            return output
        }
    }

    /// Injects `transform` applied to `dependency`'s output as this procedure's ``InputProcedure/input``.
    ///
    /// ```swift
    /// processSpeed.injectResult(from: getLocation) { $0.speed }
    /// ```
    ///
    /// `transform` runs synchronously in this procedure's event context, after `dependency` has finished and
    /// before this procedure executes, so keep it cheap (use a ``TransformProcedure`` for real work). When it
    /// throws, this procedure is cancelled with the thrown error, unwrapped. The other outcomes are those of
    /// ``InputProcedure/injectResult(from:)-4v0ci``.
    @discardableResult
    public func injectResult<Dependency: OutputProcedure>(
        from dependency: Dependency, via transform: @escaping @Sendable (Dependency.Output) throws -> Input
    ) -> Self {
        injectOutput(from: dependency) { receiver, output in
            receiver.input = .ready(try transform(output))
            receiver.didSetInputReady()
        }
    }

    /// Forwards this procedure's ``InputProcedure/input`` to every procedure bound with ``bind(to:)``.
    ///
    /// The `injectResult` APIs call it after setting the input; call it yourself after setting the input from
    /// your own injection code (for example inside
    /// ``ProcedureProtocol/inject(dependency:block:)-(_,(Self,Dependency)->Void)``'s block). Setting `input` directly
    /// does not forward it.
    public func didSetInputReady() {
        InputBindings.inputDidBecomeReady(in: self)
    }

    /// Binds `target`'s input to this procedure's: whenever this procedure's input is injected (see
    /// ``didSetInputReady()``), `target.input` is set to the same value.
    ///
    /// No dependency is added, and the binding is not transitive: `target`'s own bindings are not triggered.
    /// An input assigned directly, or injected before the binding was made, is not forwarded. `target` is held
    /// weakly, and the binding ends when this procedure finishes. This is ProcedureKit 5's `bind(to:)`; it is
    /// typically used to hand a wrapper's (or group's) input to the procedure that does the work.
    public func bind<Target: InputProcedure>(to target: Target) where Target.Input == Input {
        InputBindings.add(from: self) { [weak target] source in
            guard let target, let source = source as? Self else { return }
            target.input = source.input
        }
    }
}

extension OutputProcedure {

    /// Binds this procedure's output to `source`'s: when `source` is about to finish (in its WillFinish
    /// observers), this procedure's ``OutputProcedure/output`` is set to `source.output`.
    ///
    /// No dependency is added. This procedure is held weakly, so the binding keeps nothing alive. This is
    /// ProcedureKit 5's `bind(from:)`; it is typically used to expose the output of the procedure that did the
    /// work as the output of a wrapper (or group) that finishes after it.
    public func bind<Source: OutputProcedure>(from source: Source) where Source.Output == Output {
        source.addWillFinishBlockObserver { [weak self] source, _, _ in
            self?.output = source.output
        }
    }
}

extension OutputProcedure where Output: Sequence & Sendable, Output.Element: Sendable {

    /// A ``MapProcedure`` injected with this procedure's output: it outputs `transform` applied to each element.
    ///
    /// A failing or cancelled source cancels it, as ``InputProcedure/injectResult(from:)-4v0ci`` describes. Add both
    /// procedures to a queue.
    public func map<U: Sendable>(
        transform: @escaping @Sendable (Output.Element) throws -> U
    ) -> MapProcedure<Output.Element, U> {
        let mapping = MapProcedure(transform: transform)
        mapping.injectResult(from: self) { Array($0) }
        return mapping
    }

    /// A ``FlatMapProcedure`` injected with this procedure's output: it outputs the non-`nil` results of
    /// `transform` (ProcedureKit's `flatMap`, which is Swift's `compactMap`).
    ///
    /// A failing or cancelled source cancels it, as ``InputProcedure/injectResult(from:)-4v0ci`` describes.
    public func flatMap<U: Sendable>(
        transform: @escaping @Sendable (Output.Element) throws -> U?
    ) -> FlatMapProcedure<Output.Element, U> {
        let mapping = FlatMapProcedure(transform: transform)
        mapping.injectResult(from: self) { Array($0) }
        return mapping
    }

    /// A ``FilterProcedure`` injected with this procedure's output: it outputs the elements for which
    /// `isIncluded` returns `true`.
    ///
    /// A failing or cancelled source cancels it, as ``InputProcedure/injectResult(from:)-4v0ci`` describes.
    public func filter(
        isIncluded: @escaping @Sendable (Output.Element) throws -> Bool
    ) -> FilterProcedure<Output.Element> {
        let filtering = FilterProcedure(isIncluded: isIncluded)
        filtering.injectResult(from: self) { Array($0) }
        return filtering
    }

    /// ProcedureKit's label for ``filter(isIncluded:)``. (Disfavoured, so that a trailing closure picks
    /// `filter(isIncluded:)`.)
    @available(*, deprecated, renamed: "filter(isIncluded:)")
    @_disfavoredOverload
    public func filter(
        includeElement: @escaping @Sendable (Output.Element) throws -> Bool
    ) -> FilterProcedure<Output.Element> {
        filter(isIncluded: includeElement)
    }

    /// ProcedureKit's label for ``reduce(_:_:)``. (Disfavoured, so that a trailing closure picks `reduce(_:_:)`.)
    @_disfavoredOverload
    public func reduce<U: Sendable>(
        _ initial: U, nextPartialResult: @escaping @Sendable (U, Output.Element) throws -> U
    ) -> ReduceProcedure<Output.Element, U> {
        reduce(initial, nextPartialResult)
    }

    /// A ``ReduceProcedure`` injected with this procedure's output: it outputs the elements combined with
    /// `nextPartialResult`, starting from `initial`.
    ///
    /// A failing or cancelled source cancels it, as ``InputProcedure/injectResult(from:)-4v0ci`` describes.
    public func reduce<U: Sendable>(
        _ initial: U, _ nextPartialResult: @escaping @Sendable (U, Output.Element) throws -> U
    ) -> ReduceProcedure<Output.Element, U> {
        let reducing = ReduceProcedure(initial: initial, nextPartialResult: nextPartialResult)
        reducing.injectResult(from: self) { Array($0) }
        return reducing
    }
}
