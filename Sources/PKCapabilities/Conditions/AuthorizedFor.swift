import Foundation

/// A condition satisfied when a capability is available and authorized to its requirement; by default it
/// requests authorization first.
///
/// ```swift
/// final class Deploy: Procedure, @unchecked Sendable {
///     override init() {
///         super.init()
///         add(condition: AuthorizedFor(Capability.FileAccess(.write, at: "/srv/app")))
///     }
///     override func execute() { … ; finish() }
/// }
/// ```
///
/// It produces an ``AuthorizeCapabilityProcedure`` as a dependency, which the framework runs before evaluating
/// it, so evaluating may prompt a person or do slow work. Wrap it in `SilentCondition` to decide from the status
/// as it is, without requesting. The produced procedure is a dependency of the condition, not of the procedure,
/// so `NoFailedDependenciesCondition` does not see it.
///
/// Evaluation, after the produced authorization has finished (whatever its outcome):
/// - the capability is unavailable → fails with `ProcedureKitError.capabilityUnavailable()`, carrying
///   `unavailableReason()` as its underlying error when there is one;
/// - otherwise the status is read: if it meets the capability's requirement the condition is satisfied,
///   otherwise it fails with `ProcedureKitError.capabilityUnauthorized()`, carrying `unauthorizedReason(for:)`;
/// - with a `timeout`, a capability that has not answered when it passes fails the condition with
///   `ProcedureKitError.timedOut(with:)`.
///
/// The procedure is then cancelled with that error, or runs. The condition is not mutually exclusive unless a
/// `category` is given; the produced authorization is always exclusive per capability type.
///
/// Threads: the completion runs on the thread the capability answered on (or the clock's, for a timeout).
/// Cancellation: when the evaluation ends early, the read is abandoned and its late answer ignored. Attach an
/// instance to one procedure: its produced authorization runs once.
public final class AuthorizedFor<Status: AuthorizationStatus>: Condition, @unchecked Sendable {
    // @unchecked Sendable: `check` is guarded by its PKMutex; `capability`, `timeout` and `clock` are immutable
    // and Sendable; the superclass guards its state with its PKMutex.

    /// The capability, type-erased.
    public let capability: AnyCapability<Status>

    /// How long to wait for the capability (the produced authorization and the status read each get this long);
    /// `nil` waits as long as it takes.
    public let timeout: Duration?

    /// The clock the timeout is measured on.
    public let clock: any ProcedureClock

    private let check = PKMutex<CapabilityCheck<Status>?>(nil)

    /// Creates the condition.
    ///
    /// - Parameters:
    ///   - capability: The capability that must be available and authorized.
    ///   - category: A mutually exclusive category for the procedure, or `nil` (the default) for none.
    ///   - timeout: How long to wait for the capability; `nil` (the default) waits as long as it takes.
    ///   - clock: The clock the timeout is measured on.
    public init<Base: CapabilityProtocol>(
        _ capability: Base, category: String? = nil, timeout: Duration? = nil,
        clock: any ProcedureClock = SystemClock()
    ) where Base.Status == Status {
        self.capability = AnyCapability(capability)
        self.timeout = timeout
        self.clock = clock
        super.init()
        name = "AuthorizedFor(\(self.capability.baseTypeName))"
        if let category { addToAttachedProcedure(mutuallyExclusiveCategory: category) }
        produceDependency(AuthorizeCapabilityProcedure(capability, timeout: timeout, clock: clock))
    }

    /// Checks availability, then reads the status and compares it with the requirement.
    public override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
        let capability = self.capability
        let check = CapabilityCheck(capability: capability, mode: .readIfAvailable, timeout: timeout, clock: clock) {
            [weak self] outcome in
            self?.check.withLock { $0 = nil }
            switch outcome {
            case .unavailable, .completed(isAvailable: false, _):
                let reason = capability.unavailableReason()
                completion(.failure(ProcedureKitError(context: .capability(.unavailable), error: reason)))
            case .completed(isAvailable: true, let status):
                if status.meets(requirement: capability.requirement) {
                    completion(.success(true))
                } else {
                    let reason = capability.unauthorizedReason(for: status)
                    completion(.failure(ProcedureKitError(context: .capability(.unauthorized), error: reason)))
                }
            case .timedOut(let timeout):
                completion(.failure(ProcedureKitError.timedOut(with: .by(timeout.inSeconds))))
            case .cancelled:
                break
            }
        }
        self.check.withLock { $0 = check }
        check.start()
    }

    /// Abandons the status read in progress.
    public override func evaluationWasCancelled() {
        check.withLock { $0 }?.cancel()
    }
}
