/// The error type the framework itself reports.
///
/// A `ProcedureKitError` carries a ``Context`` that says what went wrong, which you can `switch` on, and the
/// underlying errors (if any) that caused it. Two errors are equal when their contexts are equal; the underlying
/// errors are not compared, so `ProcedureKitError.dependency(finishedWithError: a) ==
/// ProcedureKitError.dependency(finishedWithError: b)` is `true`, as in ProcedureKit.
///
/// Conditions report some failures with their own error types, nested here as in ProcedureKit:
/// ``FalseCondition``, ``FailedConditions``, ``ConditionDependenciesFailed`` and
/// ``ConditionDependenciesCancelled``.
///
/// New contexts are added over time; `switch` statements over ``Context`` should include a `default` case.
public struct ProcedureKitError: Error, Equatable, Sendable, CustomStringConvertible, CustomDebugStringConvertible {

    /// Why a capability could not be used.
    public enum CapabilityError: Error, Equatable, Sendable {
        /// The capability is not available on this system.
        case unavailable
        /// The capability is available but not authorized to the required level.
        case unauthorized
    }

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
        /// The procedure was cancelled because its parent (a group) was cancelled; the underlying errors are the
        /// parent's cancel errors.
        case parentCancelledWithError
        /// The procedure was cancelled because a dependency finished with errors; the underlying errors are
        /// the dependency's.
        case dependencyFinishedWithError
        /// The procedure was cancelled because a dependency was cancelled; the underlying errors are the
        /// dependency's.
        case dependencyCancelledWithError
        /// A condition failed; the underlying error, if any, is what it reported (for example what a
        /// `BlockCondition` threw).
        case conditionFailed
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
        /// The procedure did not finish within this delay (a timeout observer cancelled it).
        case timedOut(Delay)
        /// A capability could not be used.
        case capability(CapabilityError)
        /// The named component (a module built on PKCore) failed; the underlying error says how.
        case component(String)
        /// The procedure was cancelled because the process is shutting down and it asked to stop as soon as shutdown
        /// was requested (PKObservers' `BackgroundObserver` with `.whenShutdownRequested`, ProcedureKit's
        /// `.whenAppIsBackgrounded`).
        case shutdownRequested
        /// The procedure was cancelled because the process is shutting down and the time it was given to finish ran
        /// out (PKObservers' `BackgroundObserver` once the shutdown grace period has expired).
        case shutdownGracePeriodExpired
        /// Several errors; the underlying errors are all of them.
        case multipleErrors
        /// An error with no further information.
        case unknown
        /// The procedure waited for the named dependencies, which were on no queue, so it could never start (a
        /// ``ProcedureQueue`` with ``ProcedureQueue/StrandedDependencyPolicy/cancel(after:)`` reports this).
        case dependencyNotEnqueued([String])
    }

    /// What went wrong.
    public let context: Context

    /// The errors that caused this one, if any.
    public let underlyingErrors: [any Error]

    /// The first underlying error, if any.
    public var underlyingError: (any Error)? { underlyingErrors.first }

    /// The first underlying error, if any: ProcedureKit's name for ``underlyingError``.
    public var error: (any Error)? { underlyingErrors.first }

    /// Creates an error with a context and the errors that caused it.
    public init(context: Context, errors: [any Error] = []) {
        self.context = context
        self.underlyingErrors = errors
    }

    /// Creates an error with a context and the error (if any) that caused it.
    public init(context: Context, error: (any Error)?) {
        self.init(context: context, errors: error.map { [$0] } ?? [])
    }

    /// Compares contexts only; underlying errors are ignored.
    public static func == (lhs: ProcedureKitError, rhs: ProcedureKitError) -> Bool {
        lhs.context == rhs.context
    }

    /// A readable description that leads with what went wrong.
    ///
    /// An error that carries others one level deep names its context, then them: `"A condition failed (denied)"`.
    /// When the errors it carries carry others in turn, it leads with the root causes (see `Error.rootCauses`),
    /// then names the contexts they came through: `"negative value -1 (Several errors, through: A dependency
    /// finished with errors; A dependency was cancelled)"`. ``debugDescription`` gives the whole tree.
    public var description: String {
        guard !underlyingErrors.isEmpty else { return summary }
        let nested = wrappersAmongUnderlyingErrors
        guard context.wrapsCauses, !nested.isEmpty else {
            return summary + " (" + underlyingErrors.map { String(describing: $0) }.joined(separator: ", ") + ")"
        }
        // Breadth first, so the nearer contexts come first; bounded, as a large group's error holds many.
        var through: [String] = []
        var pending = nested
        var next = 0
        while next < pending.count, next < 1_000 {
            let error = pending[next]
            next += 1
            if !through.contains(error.summary) { through.append(error.summary) }
            pending += error.wrappersAmongUnderlyingErrors
        }
        let causes = rootCauses.map { String(describing: $0) }.joined(separator: ", ")
        return causes + " (" + summary + ", through: " + through.joined(separator: "; ") + ")"
    }

    /// The underlying errors that are themselves wrappers carrying errors (see `Error.rootCauses`).
    private var wrappersAmongUnderlyingErrors: [ProcedureKitError] {
        underlyingErrors.compactMap { $0 as? ProcedureKitError }.filter {
            $0.context.wrapsCauses && !$0.underlyingErrors.isEmpty
        }
    }

    /// The whole tree: the context, then every underlying error, nested errors in full.
    public var debugDescription: String {
        guard !underlyingErrors.isEmpty else { return summary }
        let underlying = underlyingErrors.map { error in
            (error as? ProcedureKitError)?.debugDescription ?? String(describing: error)
        }
        return summary + " (" + underlying.joined(separator: ", ") + ")"
    }

    /// The context alone, in words.
    private var summary: String {
        let base: String
        switch context {
        case .programmingError(let reason): base = "Programming error: \(reason)"
        case .noQueue: base = "The procedure is not on a queue"
        case .dependencyCycle(let names): base = "Dependency cycle: \(names.joined(separator: " -> "))"
        case .taskCancelled: base = "The awaiting Task was cancelled"
        case .dependencyNotEnqueued(let names):
            base = "Waited for dependencies on no queue: \(names.joined(separator: ", "))"
        case .parentCancelledWithError: base = "The parent was cancelled"
        case .dependencyFinishedWithError: base = "A dependency finished with errors"
        case .dependencyCancelledWithError: base = "A dependency was cancelled"
        case .conditionFailed: base = "A condition failed"
        case .dependenciesFailed: base = "A dependency failed"
        case .dependenciesCancelled: base = "A dependency was cancelled"
        case .mutualExclusionDeadlock(let categories):
            base = "Mutual exclusion would deadlock: a producing procedure holds \(categories.joined(separator: ", "))"
        case .requirementNotSatisfied: base = "A requirement was not satisfied"
        case .notStartedByProcedureQueue: base = "The procedure was not started by a ProcedureQueue"
        case .childNotAdded(let name):
            base = "The group could not take its child \(name): it was already on a queue, executing or finished"
        case .timedOut(let delay): base = "Timed out (\(delay))"
        case .capability(.unavailable): base = "The capability is unavailable"
        case .capability(.unauthorized): base = "The capability is not authorized"
        case .component(let name): base = "The component \(name) failed"
        case .shutdownRequested: base = "Cancelled: the process is shutting down"
        case .shutdownGracePeriodExpired: base = "Cancelled: the shutdown grace period expired"
        case .multipleErrors: base = "Several errors"
        case .unknown: base = "Unknown error"
        }
        return base
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

    /// The procedure waited for the named dependencies, which were on no queue.
    public static func dependencyNotEnqueued(_ names: [String]) -> ProcedureKitError {
        ProcedureKitError(context: .dependencyNotEnqueued(names))
    }

    /// The Task awaiting the procedure was cancelled.
    public static func taskCancelled() -> ProcedureKitError { ProcedureKitError(context: .taskCancelled) }

    /// The parent (for example a group) was cancelled with `errors`. A parent cancelled because its own parent was
    /// contributes that parent's errors instead, so the error of a child of nested groups names the outermost
    /// cause, and stays one level deep however deep the nesting.
    public static func parent(cancelledWithErrors errors: [any Error]) -> ProcedureKitError {
        ProcedureKitError(context: .parentCancelledWithError, errors: flattening(errors, .parentCancelledWithError))
    }

    /// The parent (for example a group) was cancelled with `error`: ProcedureKit's spelling of
    /// ``parent(cancelledWithErrors:)``.
    public static func parent(cancelledWithError error: (any Error)?) -> ProcedureKitError {
        parent(cancelledWithErrors: error.map { [$0] } ?? [])
    }

    /// A dependency finished with `errors` (errors of the same kind among them contribute their own underlying
    /// errors, so a long chain of injections stays one level deep).
    public static func dependency(finishedWithErrors errors: [any Error]) -> ProcedureKitError {
        ProcedureKitError(
            context: .dependencyFinishedWithError, errors: flattening(errors, .dependencyFinishedWithError))
    }

    /// A dependency finished with `error`: ProcedureKit's spelling of ``dependency(finishedWithErrors:)``.
    public static func dependency(finishedWithError error: (any Error)?) -> ProcedureKitError {
        dependency(finishedWithErrors: error.map { [$0] } ?? [])
    }

    /// A dependency was cancelled with `errors` (errors of the same kind among them contribute their own
    /// underlying errors, so a long chain of injections stays one level deep).
    public static func dependency(cancelledWithErrors errors: [any Error]) -> ProcedureKitError {
        ProcedureKitError(
            context: .dependencyCancelledWithError, errors: flattening(errors, .dependencyCancelledWithError))
    }

    /// `errors`, with each `ProcedureKitError` of `context` replaced by its underlying errors.
    private static func flattening(_ errors: [any Error], _ context: Context) -> [any Error] {
        guard errors.contains(where: { ($0 as? ProcedureKitError)?.context == context }) else { return errors }
        return errors.flatMap { error -> [any Error] in
            guard let error = error as? ProcedureKitError, error.context == context else { return [error] }
            return error.underlyingErrors
        }
    }

    /// A dependency was cancelled with `error`: ProcedureKit's spelling of ``dependency(cancelledWithErrors:)``.
    public static func dependency(cancelledWithError error: (any Error)?) -> ProcedureKitError {
        dependency(cancelledWithErrors: error.map { [$0] } ?? [])
    }

    /// A condition failed, because of `error` if given (what a `BlockCondition` threw, say).
    public static func conditionFailed(with error: (any Error)? = nil) -> ProcedureKitError {
        ProcedureKitError(context: .conditionFailed, error: error)
    }

    /// A dependency of the procedure finished with errors (`errors`, when given).
    public static func dependenciesFailed(_ errors: [any Error] = []) -> ProcedureKitError {
        ProcedureKitError(context: .dependenciesFailed, errors: errors)
    }

    /// A dependency of the procedure was cancelled.
    public static func dependenciesCancelled() -> ProcedureKitError {
        ProcedureKitError(context: .dependenciesCancelled)
    }

    /// A requirement, such as an injected input, was not satisfied.
    public static func requirementNotSatisfied() -> ProcedureKitError {
        ProcedureKitError(context: .requirementNotSatisfied)
    }

    /// The procedure did not finish within `delay`.
    public static func timedOut(with delay: Delay) -> ProcedureKitError {
        ProcedureKitError(context: .timedOut(delay))
    }

    /// The capability is not available on this system.
    public static func capabilityUnavailable() -> ProcedureKitError {
        ProcedureKitError(context: .capability(.unavailable))
    }

    /// The capability is not authorized to the required level.
    public static func capabilityUnauthorized() -> ProcedureKitError {
        ProcedureKitError(context: .capability(.unauthorized))
    }

    /// `component` failed with `error`.
    public static func component(_ component: any ProcedureKitComponent, error: (any Error)?) -> ProcedureKitError {
        ProcedureKitError(context: .component(component.name), error: error)
    }

    /// The process is shutting down, and the procedure asked to be cancelled as soon as shutdown was requested.
    public static func shutdownRequested() -> ProcedureKitError {
        ProcedureKitError(context: .shutdownRequested)
    }

    /// ProcedureKit's name for ``shutdownRequested()``: on iOS the app went to the background; on Linux the process
    /// was asked to shut down.
    public static func appWasBackgrounded() -> ProcedureKitError { shutdownRequested() }

    /// The process is shutting down, and the grace period it gave procedures to finish has expired.
    public static func shutdownGracePeriodExpired() -> ProcedureKitError {
        ProcedureKitError(context: .shutdownGracePeriodExpired)
    }

    /// An error with no further information.
    public static let unknown = ProcedureKitError(context: .unknown)
}

/// A module or subsystem built on PKCore that reports errors through ``ProcedureKitError/component(_:error:)``.
public protocol ProcedureKitComponent: Sendable {
    /// The component's name, as ``ProcedureKitError/Context/component(_:)`` carries it.
    var name: String { get }
}
