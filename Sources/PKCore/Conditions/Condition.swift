import Foundation

/// The outcome of evaluating a condition: `.success(true)` satisfied, `.success(false)` ignored (the procedure
/// does not run, without an error), `.failure(error)` failed (the procedure does not run and is cancelled with
/// the error).
public typealias ConditionResult = ProcedureResult<Bool>

/// Something that must hold before a procedure executes. Subclass it and override
/// ``evaluate(procedure:completion:)``.
///
/// Conditions are evaluated asynchronously after all of the procedure's direct dependencies have finished and
/// before it executes. A condition may have dependencies of its own: ``addDependency(_:)`` waits for an
/// operation you schedule yourself; ``produceDependency(_:)`` hands an operation to the framework, which runs it
/// after the procedure's dependencies and before evaluating. ``mutuallyExclusiveCategories`` make the procedure
/// take a process-wide lock per category after its conditions pass and before it becomes ready.
///
/// Thread safety: configure a condition before adding it to a procedure; after that it is read from the
/// evaluation thread. Conditions are compared by identity.
open class Condition: Hashable, CustomStringConvertible, @unchecked Sendable {
    // @unchecked Sendable: every mutable field lives in `state`, guarded by its PKMutex.

    /// What a condition requires of its own dependencies before it is evaluated.
    public struct DependencyRequirements: OptionSet, Sendable, Hashable {
        /// The bits of the set.
        public let rawValue: Int
        /// Creates requirements from a raw value.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// No requirement: evaluate even if dependencies failed or were cancelled. The default.
        public static let none: DependencyRequirements = []
        /// Fail with ``ProcedureKitError/ConditionDependenciesFailed`` if a dependency that is
        /// a procedure finished with errors.
        public static let noFailed = DependencyRequirements(rawValue: 1 << 0)
        /// Fail with ``ProcedureKitError/ConditionDependenciesCancelled`` if a dependency
        /// was cancelled.
        public static let noCancelled = DependencyRequirements(rawValue: 1 << 1)
        /// With ``noFailed``: a dependency that failed because it was cancelled is not counted as failed.
        public static let ignoreFailedIfCancelled = DependencyRequirements(rawValue: 1 << 2)
        /// Both ``noFailed`` and ``noCancelled``; failures are checked first.
        public static let noFailedOrCancelled: DependencyRequirements = [.noFailed, .noCancelled]
    }

    struct State {
        var name: String?
        var categories: Set<String> = []
        var requirements: DependencyRequirements = .none
        var dependencies: [Operation] = []
        var producedDependencies: [Operation] = []
        var output: Pending<ConditionResult> = .pending
    }

    let state = PKMutex(State())

    /// Creates a condition.
    public init() {}

    /// The condition's name, used in errors and logs; defaults to the type name.
    open var name: String? {
        get { state.withLock { $0.name } ?? String(describing: type(of: self)) }
        set { state.withLock { $0.name = newValue } }
    }

    /// The name, never `nil`.
    public final var conditionName: String { name ?? String(describing: type(of: self)) }

    /// Categories in which the attached procedure is mutually exclusive with every other procedure (on any queue)
    /// that has the same category.
    open var mutuallyExclusiveCategories: Set<String> {
        get { state.withLock { $0.categories } }
        set { state.withLock { $0.categories = newValue } }
    }

    /// `true` when the condition has at least one mutually exclusive category.
    public final var isMutuallyExclusive: Bool { !mutuallyExclusiveCategories.isEmpty }

    /// Adds a mutually exclusive category.
    public final func addToAttachedProcedure(mutuallyExclusiveCategory category: String) {
        state.withLock { _ = $0.categories.insert(category) }
    }

    /// What the condition requires of its dependencies before it is evaluated. Defaults to ``DependencyRequirements/none``.
    public final var dependencyRequirements: DependencyRequirements {
        get { state.withLock { $0.requirements } }
        set { state.withLock { $0.requirements = newValue } }
    }

    /// Operations the condition waits for; you add them to a queue yourself.
    open var dependencies: [Operation] { state.withLock { $0.dependencies } }

    /// Operations the framework runs for the condition, after the procedure's dependencies and before
    /// evaluating it.
    open var producedDependencies: [Operation] { state.withLock { $0.producedDependencies } }

    /// Waits for `operation` (which you schedule) before evaluating.
    public final func addDependency(_ operation: Operation) {
        state.withLock { $0.dependencies.append(operation) }
    }

    /// Stops waiting for `operation`, whether it was added with ``addDependency(_:)`` or produced with
    /// ``produceDependency(_:)``.
    public final func removeDependency(_ operation: Operation) {
        state.withLock {
            $0.dependencies.removeAll { $0 === operation }
            $0.producedDependencies.removeAll { $0 === operation }
        }
    }

    /// Hands `operation` to the framework to run before evaluating. It must not be on a queue already.
    public final func produceDependency(_ operation: Operation) {
        state.withLock { $0.producedDependencies.append(operation) }
    }

    /// Forgets every produced dependency (used by conditions that must not trigger side effects).
    public final func removeProducedDependencies() {
        let removed = state.withLock { replaceValue(&$0.producedDependencies, with: []) }
        withExtendedLifetime(removed) {}  // user operations, released outside the lock
    }

    /// The result of the last evaluation; `.pending` until then.
    public final var output: Pending<ConditionResult> {
        get { state.withLock { $0.output } }
        set {
            let replaced = state.withLock { replaceValue(&$0.output, with: newValue) }
            withExtendedLifetime(replaced) {}  // an old result's error, released outside the lock
        }
    }

    /// Decides whether `procedure` may execute, and calls `completion` exactly once with the result, possibly
    /// later and from any thread.
    ///
    /// Called on a framework dispatch queue after the condition's dependencies have finished. The default fails
    /// with a programming error: override it.
    open func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        completion(.failure(ProcedureKitError.programmingError(reason: "\(conditionName) does not override evaluate")))
    }

    /// Called when an evaluation this condition is part of ends before the condition completed (another
    /// condition decided, or the procedure was cancelled). Compound conditions cancel their nested evaluation
    /// here. The default does nothing. Calling the completion afterwards is harmless.
    open func evaluationWasCancelled() {}

    /// Identity.
    public static func == (lhs: Condition, rhs: Condition) -> Bool { lhs === rhs }

    /// Hashes the identity.
    public func hash(into hasher: inout Hasher) { hasher.combine(ObjectIdentifier(self)) }

    /// The name.
    open var description: String { conditionName }
}
