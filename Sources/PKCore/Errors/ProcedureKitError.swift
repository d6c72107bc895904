/// The error type the framework itself reports.
///
/// A `ProcedureKitError` carries a ``Context`` that says what went wrong, which you can `switch` on, and the
/// underlying errors (if any) that caused it. Two errors are equal when their contexts are equal; the underlying
/// errors are not compared, so `ProcedureKitError.noQueue() == ProcedureKitError.noQueue()` is `true`.
///
/// New contexts are added over time; `switch` statements over ``Context`` should include a `default` case.
public struct ProcedureKitError: Error, Equatable, Sendable, CustomStringConvertible {

    /// What went wrong.
    public enum Context: Equatable, Sendable {
        /// The framework was used in a way it does not support; the string says how.
        case programmingError(String)
        /// The operation needs a queue, but the procedure is not (or no longer) on one.
        case noQueue
        /// The procedures named form a dependency cycle, so none of them could ever become ready.
        case dependencyCycle([String])
        /// The procedure was cancelled because the Swift `Task` awaiting it was cancelled.
        case taskCancelled
        /// The procedure was cancelled because its parent was cancelled.
        case parentCancelled
        /// The procedure was cancelled because a dependency finished with errors.
        case dependencyFinishedWithErrors
        /// The procedure was cancelled because a dependency was cancelled.
        case dependencyCancelledWithErrors
        /// The named condition failed; the underlying errors are what it reported.
        case conditionFailed(condition: String)
        /// Several conditions failed; the underlying errors are their errors.
        case conditionsFailed
        /// A dependency of the named condition finished with errors (its requirements include `.noFailed`).
        case conditionDependenciesFailed(condition: String)
        /// A dependency of the named condition was cancelled (its requirements include `.noCancelled`).
        case conditionDependenciesCancelled(condition: String)
        /// `FalseCondition`-style conditions (PKConditions) fail with this.
        case falseCondition
        /// A dependency of the procedure finished with errors (reported by `NoFailedDependenciesCondition`).
        case dependenciesFailed
        /// A dependency of the procedure was cancelled (reported by `NoFailedDependenciesCondition`).
        case dependenciesCancelled
        /// The procedure asked for a mutually exclusive category that a procedure it was produced by (directly or
        /// through others) holds; waiting would deadlock, so it was cancelled instead.
        case mutualExclusionDeadlock(categories: [String])
        /// A requirement (for example an input value) was not satisfied.
        case requirementNotSatisfied
        /// The procedure was started by something other than a ``ProcedureQueue``.
        case notStartedByProcedureQueue
        /// A group could not take the named child: it was already on a queue (a procedure runs once), or it was a
        /// plain operation that had already finished or was executing.
        case childNotAdded(String)
        /// Several errors; the underlying errors are all of them.
        case multipleErrors
        /// An error with no further information.
        case unknown
    }

    /// What went wrong.
    public let context: Context

    /// The errors that caused this one, if any.
    public let underlyingErrors: [any Error]

    /// The first underlying error, if any.
    public var underlyingError: (any Error)? { underlyingErrors.first }

    /// Creates an error with a context and the errors that caused it.
    public init(context: Context, errors: [any Error] = []) {
        self.context = context
        self.underlyingErrors = errors
    }

    /// Compares contexts only; underlying errors are ignored.
    public static func == (lhs: ProcedureKitError, rhs: ProcedureKitError) -> Bool {
        lhs.context == rhs.context
    }

    /// A readable description naming the context and the underlying errors.
    public var description: String {
        let base: String
        switch context {
        case .programmingError(let reason): base = "Programming error: \(reason)"
        case .noQueue: base = "The procedure is not on a queue"
        case .dependencyCycle(let names): base = "Dependency cycle: \(names.joined(separator: " -> "))"
        case .taskCancelled: base = "The awaiting Task was cancelled"
        case .parentCancelled: base = "The parent was cancelled"
        case .dependencyFinishedWithErrors: base = "A dependency finished with errors"
        case .dependencyCancelledWithErrors: base = "A dependency was cancelled"
        case .conditionFailed(let condition): base = "The condition \(condition) failed"
        case .conditionsFailed: base = "Several conditions failed"
        case .conditionDependenciesFailed(let condition): base = "A dependency of the condition \(condition) failed"
        case .conditionDependenciesCancelled(let condition):
            base = "A dependency of the condition \(condition) was cancelled"
        case .falseCondition: base = "FalseCondition"
        case .dependenciesFailed: base = "A dependency failed"
        case .dependenciesCancelled: base = "A dependency was cancelled"
        case .mutualExclusionDeadlock(let categories):
            base = "Mutual exclusion would deadlock: a producing procedure holds \(categories.joined(separator: ", "))"
        case .requirementNotSatisfied: base = "A requirement was not satisfied"
        case .notStartedByProcedureQueue: base = "The procedure was not started by a ProcedureQueue"
        case .childNotAdded(let name):
            base = "The group could not take its child \(name): it was already on a queue, executing or finished"
        case .multipleErrors: base = "Several errors"
        case .unknown: base = "Unknown error"
        }
        guard !underlyingErrors.isEmpty else { return base }
        return base + " (" + underlyingErrors.map { String(describing: $0) }.joined(separator: ", ") + ")"
    }

    // MARK: - Factories

    /// The framework was misused; `reason` says how.
    public static func programmingError(reason: String) -> ProcedureKitError {
        ProcedureKitError(context: .programmingError(reason))
    }

    /// The procedure has no queue to add an operation to.
    public static func noQueue() -> ProcedureKitError { ProcedureKitError(context: .noQueue) }

    /// The named procedures form a dependency cycle.
    public static func dependencyCycle(_ names: [String]) -> ProcedureKitError {
        ProcedureKitError(context: .dependencyCycle(names))
    }

    /// The Task awaiting the procedure was cancelled.
    public static func taskCancelled() -> ProcedureKitError { ProcedureKitError(context: .taskCancelled) }

    /// The parent (for example a group) was cancelled with `errors`.
    public static func parent(cancelledWithErrors errors: [any Error]) -> ProcedureKitError {
        ProcedureKitError(context: .parentCancelled, errors: errors)
    }

    /// A dependency finished with `errors`.
    public static func dependency(finishedWithErrors errors: [any Error]) -> ProcedureKitError {
        ProcedureKitError(context: .dependencyFinishedWithErrors, errors: errors)
    }

    /// A dependency was cancelled with `errors`.
    public static func dependency(cancelledWithErrors errors: [any Error]) -> ProcedureKitError {
        ProcedureKitError(context: .dependencyCancelledWithErrors, errors: errors)
    }

    /// The condition named `condition` failed with `errors`.
    public static func conditionFailed(_ condition: String, with errors: [any Error] = []) -> ProcedureKitError {
        ProcedureKitError(context: .conditionFailed(condition: condition), errors: errors)
    }

    /// The error `FalseCondition`-style conditions (PKConditions) fail with.
    public static func falseCondition() -> ProcedureKitError { ProcedureKitError(context: .falseCondition) }

    /// A dependency of the procedure finished with errors.
    public static func dependenciesFailed(_ errors: [any Error] = []) -> ProcedureKitError {
        ProcedureKitError(context: .dependenciesFailed, errors: errors)
    }

    /// A dependency of the procedure was cancelled.
    public static func dependenciesCancelled() -> ProcedureKitError {
        ProcedureKitError(context: .dependenciesCancelled)
    }

    /// Whether this error already says that a condition failed (so it is not wrapped again).
    public var isConditionError: Bool {
        switch context {
        case .conditionFailed, .conditionsFailed, .conditionDependenciesFailed, .conditionDependenciesCancelled:
            true
        default:
            false
        }
    }

    /// A requirement, such as an injected input, was not satisfied.
    public static func requirementNotSatisfied() -> ProcedureKitError {
        ProcedureKitError(context: .requirementNotSatisfied)
    }

    /// An error with no further information.
    public static let unknown = ProcedureKitError(context: .unknown)
}
