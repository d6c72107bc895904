import Foundation

/// A condition that stops the procedure when one of its direct dependencies failed or was cancelled.
///
/// A failed or cancelled dependency does not stop its dependents by itself; attach this condition when it should.
/// It looks at the procedure's own `Procedure/dependencies` (not at dependencies of its conditions), once they
/// have all finished:
///
/// 1. If a dependency that is a `Procedure` finished with errors (including one cancelled with an error), it
///    fails with `ProcedureKitError/dependenciesFailed(_:)` carrying those errors. This is checked first.
/// 2. Otherwise, if a dependency was cancelled, it fails with `ProcedureKitError/dependenciesCancelled()`, or,
///    with `ignoreCancellations`, is ignored: the procedure still does not execute, but finishes cancelled with no
///    error.
/// 3. Otherwise it is satisfied.
///
/// The procedure is cancelled with that error as it is.
///
/// ``evaluate(procedure:completion:)`` completes synchronously on the calling evaluation thread; there is nothing
/// to cancel.
public final class NoFailedDependenciesCondition: Condition, @unchecked Sendable {
    // @unchecked Sendable: `ignoreCancellations` is immutable; the superclass guards its state with its PKMutex.

    /// When `true`, a cancelled (not failed) dependency makes the condition ignored rather than failed.
    public let ignoreCancellations: Bool

    /// Creates the condition.
    ///
    /// - Parameter ignoreCancellations: `true` to treat a dependency cancelled without error as "ignored" (no
    ///   error) instead of a failure.
    public init(ignoreCancellations: Bool = false) {
        self.ignoreCancellations = ignoreCancellations
        super.init()
        name = "NoFailedDependencies"
    }

    /// Inspects `procedure.dependencies` and completes at once, on the calling thread.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let dependencies = procedure.dependencies
        let errors = dependencies.compactMap { $0 as? Procedure }.flatMap(\.errors)
        if !errors.isEmpty {
            completion(.failure(ProcedureKitError.dependenciesFailed(errors)))
        } else if dependencies.contains(where: \.isCancelled) {
            completion(ignoreCancellations ? .success(false) : .failure(ProcedureKitError.dependenciesCancelled()))
        } else {
            completion(.success(true))
        }
    }
}
