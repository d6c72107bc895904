/// A procedure that requests authorization for a capability, then reads its availability and status as
/// ``GetAuthorizationStatusProcedure`` does.
///
/// ```swift
/// let authorize = AuthorizeCapabilityProcedure(credential)
/// let (_, status) = try await queue.run(authorize)
/// ```
///
/// Requesting may prompt a person or do slow work (create a directory, fetch a token). Two
/// `AuthorizeCapabilityProcedure`s for capabilities of the same type never run at the same time, on any queue:
/// each is mutually exclusive in the category `"AuthorizeCapabilityProcedure(<capability type name>)"`, so two
/// prompts for one capability never overlap.
///
/// It succeeds whatever the answer (the status may still not meet the requirement); the output is
/// `(isAvailable, status)`. An unavailable capability is not asked: the status is read and reported at once.
/// The timeout, cancellation and late answers behave as for ``GetAuthorizationStatusProcedure``; a request
/// already made is not withdrawn (the capability decides what happens to it).
public final class AuthorizeCapabilityProcedure<Status: AuthorizationStatus>: GetAuthorizationStatusProcedure<Status>,
    @unchecked Sendable
{
    // @unchecked Sendable: no state of its own; the superclass documents its locking.

    /// Creates a procedure requesting authorization for `capability`, then reading its status.
    ///
    /// - Parameters:
    ///   - capability: The capability to authorize.
    ///   - timeout: How long to wait for the capability (request and status together); `nil` (the default)
    ///     waits as long as it takes.
    ///   - clock: The clock the timeout is measured on.
    ///   - completion: Called with the response before the procedure finishes, on the thread the capability
    ///     answered on. Not called after a timeout or a cancellation.
    public override init<Base: CapabilityProtocol>(
        _ capability: Base, timeout: Duration? = nil, clock: any ProcedureClock = SystemClock(),
        completion: Completion? = nil
    ) where Base.Status == Status {
        super.init(capability, timeout: timeout, clock: clock, completion: completion)
        add(
            condition: MutuallyExclusive<AuthorizeCapabilityProcedure<Status>>(
                category: Self.category(for: self.capability)))
    }

    /// The mutually exclusive category of authorizations for capabilities of `capability`'s type:
    /// `"AuthorizeCapabilityProcedure(<type name>)"`.
    public static func category(for capability: AnyCapability<Status>) -> String {
        "AuthorizeCapabilityProcedure(\(capability.baseTypeName))"
    }

    override class var displayName: String { "AuthorizeCapability" }

    override var requestsAuthorization: Bool { true }
}
