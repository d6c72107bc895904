import Foundation

// ProcedureKit's helpers on every `Foundation.Operation`, procedures included.

extension Operation {

    /// The operation's name, or `"Unnamed Operation"` when it has none. A procedure always has a name (its type's
    /// name by default), so this is its ``Procedure/procedureName``.
    public var operationName: String {
        if let procedure = self as? Procedure { return procedure.procedureName }
        return name ?? "Unnamed Operation"
    }

    /// Runs `block` when the operation finishes, after any completion block already set (both run, once each, on
    /// the thread Foundation runs completion blocks on).
    ///
    /// The chain is built by replacing `completionBlock`, so set completion blocks from one thread at a time.
    public func addCompletionBlock(block: @escaping @Sendable () -> Void) {
        let existing = completionBlock
        completionBlock = {
            existing?()
            block()
        }
    }

    /// Makes each of `operations` a dependency.
    public func addDependencies<S: Sequence>(_ operations: S) where S.Element: Operation {
        for operation in operations { addDependency(operation) }
    }

    /// Makes each of `operations` a dependency.
    public func addDependencies(_ operations: Operation...) {
        addDependencies(operations)
    }

    /// Removes each of `operations` from the dependencies. A procedure allows it only before it is enqueued.
    public func removeDependencies<S: Sequence>(_ operations: S) where S.Element: Operation {
        for operation in operations { removeDependency(operation) }
    }

    /// Removes every dependency. A procedure allows it only before it is enqueued. (ProcedureKit 5's version
    /// added them again instead.)
    public func removeAllDependencies() {
        removeDependencies(dependencies)
    }

    /// Makes `operation` depend on this one and returns both, this one first, for building chains:
    /// `fetch.then(do: parse).then(do: store)`.
    @discardableResult
    public func then(do operation: Operation) -> [Operation] {
        operation.addDependency(self)
        return [self, operation]
    }

    /// Makes the operation `block` returns depend on this one and returns both; when `block` returns `nil`,
    /// returns only this one.
    @discardableResult
    public func then(do block: () throws -> Operation?) rethrows -> [Operation] {
        guard let operation = try block() else { return [self] }
        return then(do: operation)
    }
}

extension Collection where Element: Operation {

    /// Makes every operation of `operations` depend on every element of this collection, and returns this
    /// collection's elements followed by `operations`.
    @discardableResult
    public func then<S: Sequence>(do operations: S) -> [Element] where S.Element == Element {
        let following = Array(operations)
        for operation in following {
            for dependency in self { operation.addDependency(dependency) }
        }
        return Array(self) + following
    }

    /// Makes every one of `operations` depend on every element of this collection, and returns them all.
    @discardableResult
    public func then(do operations: Element...) -> [Element] {
        then(do: operations)
    }

    /// Makes the operation `block` returns depend on every element, and returns them all; when `block` returns
    /// `nil`, returns only the elements.
    @discardableResult
    public func then(do block: () throws -> Element?) rethrows -> [Element] {
        guard let operation = try block() else { return Array(self) }
        return then(do: [operation])
    }

    /// Adds every element to `queue` (a new queue by default), in order.
    public func enqueue(on queue: ProcedureQueue = ProcedureQueue()) {
        for operation in self { queue.addOperation(operation) }
    }
}
