import Foundation

extension Procedure {

    /// Makes each of `operations` a dependency. See ``addDependency(_:)``.
    public final func addDependencies(_ operations: [Operation]) {
        for operation in operations { addDependency(operation) }
    }

    /// Makes each of `operations` a dependency. See ``addDependency(_:)``.
    public final func addDependencies(_ operations: Operation...) {
        addDependencies(operations)
    }

    /// Removes every dependency. Allowed only before the procedure is enqueued.
    public final func removeAllDependencies() {
        for dependency in dependencies { removeDependency(dependency) }
    }

}
