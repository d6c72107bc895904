import Foundation

/// Something that waits for dependencies and is told when one of them finishes.
protocol DependencyWaiter: AnyObject, Sendable {
    /// One dependency this waiter registered with has finished.
    func dependencyDidFinish()
}

extension DependencyWaiter {
    /// Registers to hear, through ``dependencyDidFinish()``, when `dependency` finishes: a procedure tells its
    /// dependents directly, a plain operation is watched through ``OperationFinishWatcher``. Returns `false`, having
    /// registered nothing, when `dependency` has already finished (the caller counts it down itself).
    func register(asDependentOf dependency: Operation) -> Bool {
        if let procedure = dependency as? Procedure {
            return procedure.addDependent(self)
        }
        return OperationFinishWatcher.whenFinished(dependency) { [self] in dependencyDidFinish() }
    }

    /// Registers with each of `dependencies` (see the one-operation form); returns how many had
    /// already finished, which the caller counts down in one step.
    func register(asDependentOf dependencies: some Sequence<Operation>) -> Int {
        var alreadyFinished = 0
        for dependency in dependencies where !register(asDependentOf: dependency) {
            alreadyFinished += 1
        }
        return alreadyFinished
    }
}
