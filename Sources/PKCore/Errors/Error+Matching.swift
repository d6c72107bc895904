import Foundation

// Reading errors: the root causes behind the framework's wrapping errors, and predicates for the usual questions
// (did it time out, was it cancelled, did a dependency or a condition fail), on any error and on a procedure's
// `errors`.

extension ProcedureKitError.Context {
    /// Contexts whose error only carries others (a dependency's, a parent's, several at once): the underlying
    /// errors, when there are any, are the causes.
    var wrapsCauses: Bool {
        switch self {
        case .multipleErrors, .dependencyFinishedWithError, .dependencyCancelledWithError, .parentCancelledWithError,
            .conditionFailed, .dependenciesFailed, .component:
            true
        default:
            false
        }
    }
}

extension Error {
    /// The errors at the root of this one: a ``ProcedureKitError`` that only carries others (several errors, a
    /// dependency's or a parent's, a failed condition's, a component's) is replaced by the root causes of what it
    /// carries, as are a ``ProcedureKitError/FailedConditions``' errors; any other error is its own root cause.
    /// In order of first appearance, each once.
    ///
    /// ```swift
    /// // "Several errors (negative value -1, A dependency finished with errors (negative value -1))"
    /// error.rootCauses  // [negative value -1]
    /// ```
    ///
    /// Two causes are the same when they are the same object, or values of the same type with the same
    /// description. (Errors are not hashed: on Linux, hashing some, such as `URLError`, traps.)
    public var rootCauses: [any Error] {
        var causes = RootCauses()
        causes.collect(self)
        return causes.errors
    }

    /// `true` when a timeout is among the root causes: ``ProcedureKitError/Context/timedOut(_:)`` (a
    /// `TimeoutObserver`'s), or `URLError.timedOut`.
    public var isTimeout: Bool {
        rootCauses.contains { cause in
            if let error = cause as? ProcedureKitError, case .timedOut = error.context { return true }
            return (cause as? URLError)?.code == .timedOut
        }
    }

    /// `true` when this error means "cancelled" rather than "failed": every one of its root causes is a
    /// cancellation (`CancellationError`, `URLError.cancelled`, or a ``ProcedureKitError`` for a cancelled Task,
    /// parent or dependency, or a shutdown, carrying no error of its own). A dependency that was cancelled because
    /// *its* dependency failed is not a cancellation: the failure is its root cause, and ``isDependencyFailure``
    /// says how it arrived.
    public var isCancellation: Bool {
        let causes = rootCauses
        return !causes.isEmpty && causes.allSatisfy(\.isCancellationCause)
    }

    /// A root cause that means "cancelled".
    private var isCancellationCause: Bool {
        if self is CancellationError { return true }
        if (self as? URLError)?.code == .cancelled { return true }
        guard let error = self as? ProcedureKitError else { return false }
        switch error.context {
        case .taskCancelled, .parentCancelledWithError, .dependencyCancelledWithError, .dependenciesCancelled,
            .shutdownRequested, .shutdownGracePeriodExpired:
            return true
        default:
            return false
        }
    }

    /// `true` when this error says a dependency failed or was cancelled (what result injection, `gathered()` and
    /// `NoFailedDependenciesCondition` report) or was on no queue, or, for several errors, one of them does.
    public var isDependencyFailure: Bool {
        guard let error = self as? ProcedureKitError else { return false }
        switch error.context {
        case .dependencyFinishedWithError, .dependencyCancelledWithError, .dependenciesFailed,
            .dependenciesCancelled, .dependencyNotEnqueued:
            return true
        case .multipleErrors:
            return error.underlyingErrors.contains(where: \.isDependencyFailure)
        default:
            return false
        }
    }

    /// `true` when this error says a condition failed: ``ProcedureKitError/Context/conditionFailed``,
    /// ``ProcedureKitError/FalseCondition``, ``ProcedureKitError/FailedConditions``, or a condition whose own
    /// dependencies failed or were cancelled; for several errors, when one of them does.
    public var isConditionFailure: Bool {
        switch self {
        case is ProcedureKitError.FalseCondition, is ProcedureKitError.FailedConditions,
            is ProcedureKitError.ConditionDependenciesFailed, is ProcedureKitError.ConditionDependenciesCancelled:
            return true
        case let error as ProcedureKitError:
            if error.context == .conditionFailed { return true }
            return error.context == .multipleErrors && error.underlyingErrors.contains(where: \.isConditionFailure)
        default:
            return false
        }
    }
}

extension Array where Element == any Error {
    /// The root causes of all the errors (see `Error.rootCauses`), in order, each once:
    /// `procedure.errors.rootCauses`.
    public var rootCauses: [any Error] {
        var causes = RootCauses()
        for error in self { causes.collect(error) }
        return causes.errors
    }

    /// `true` when one of the errors is a timeout: `procedure.errors.isTimeout` for a procedure a
    /// `TimeoutObserver` cancelled.
    public var isTimeout: Bool { contains(where: \.isTimeout) }

    /// `true` when the errors mean "cancelled" rather than "failed": there is at least one, and every root cause is
    /// a cancellation (see `Error.isCancellation`).
    public var isCancellation: Bool {
        let causes = rootCauses
        return !causes.isEmpty && causes.allSatisfy(\.isCancellation)
    }

    /// `true` when one of the errors says a dependency failed or was cancelled.
    public var isDependencyFailure: Bool { contains(where: \.isDependencyFailure) }

    /// `true` when one of the errors says a condition failed.
    public var isConditionFailure: Bool { contains(where: \.isConditionFailure) }
}

/// Root causes gathered in order of first appearance, each once.
private struct RootCauses {
    private(set) var errors: [any Error] = []
    private var seen = Set<Key>()

    /// What makes two causes the same.
    private enum Key: Hashable {
        case object(ObjectIdentifier)
        case described(ObjectIdentifier, String)

        init(_ error: any Error) {
            if type(of: error) is AnyClass {
                self = .object(ObjectIdentifier(error as AnyObject))
            } else {
                self = .described(ObjectIdentifier(type(of: error)), String(describing: error))
            }
        }
    }

    mutating func collect(_ error: any Error, depth: Int = 0) {
        // Bounded: the framework flattens its own chains, but a user may nest errors by hand.
        if depth < 64 {
            if let error = error as? ProcedureKitError, error.context.wrapsCauses, !error.underlyingErrors.isEmpty {
                for underlying in error.underlyingErrors { collect(underlying, depth: depth + 1) }
                return
            }
            if let failed = error as? ProcedureKitError.FailedConditions, !failed.errors.isEmpty {
                for underlying in failed.errors { collect(underlying, depth: depth + 1) }
                return
            }
        }
        guard seen.insert(Key(error)).inserted else { return }
        errors.append(error)
    }
}
