/// A gated resource: something the program may use only when it is available and authorized, such as a privilege
/// of the process, access to a directory, a web-service credential or a person's consent.
///
/// A capability answers four questions, each of which it may answer synchronously or later, from any thread:
///
/// - ``requirement``: what the code using it needs;
/// - ``isAvailable()``: whether the resource exists on this system at all;
/// - ``getAuthorizationStatus(_:)``: how far it is authorized now, without asking anyone;
/// - ``requestAuthorization(withCompletion:)``: ask for authorization (which may prompt a person, create a
///   directory or fetch a token), then call back.
///
/// Use it through ``GetAuthorizationStatusProcedure`` (read only), ``AuthorizeCapabilityProcedure`` (request,
/// then read) or the ``AuthorizedFor`` condition (request, then decide whether a procedure may run); from Swift
/// concurrency, through ``authorizationStatus()`` and ``requestAuthorization()``.
///
/// Two optional members explain a "no" in words: ``unavailableReason()`` and ``unauthorizedReason(for:)``. The
/// ``AuthorizedFor`` condition attaches what they return to its error.
///
/// Capabilities are `Sendable`: the framework calls them from its own threads. The completion handlers must be
/// called exactly once; the framework guards against a capability that calls back twice or never (see the
/// `timeout` of the procedures and of ``AuthorizedFor``), but such a capability is a bug.
public protocol CapabilityProtocol<Status>: Sendable {

    /// The type of the authorization status.
    associatedtype Status: AuthorizationStatus

    /// What the code using the capability needs; `nil` for the least useful level.
    var requirement: Status.Requirement? { get }

    /// Whether the resource exists on this system. It should be quick: it is called synchronously on the
    /// framework's threads.
    func isAvailable() -> Bool

    /// Reads the current status without asking anyone, and calls `completion` with it once, on any thread,
    /// possibly before returning.
    func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void)

    /// Asks for authorization (this may prompt a person, or do work that takes a while), then calls `completion`
    /// once, on any thread, possibly before returning. The status is read afterwards with
    /// ``getAuthorizationStatus(_:)``.
    ///
    /// There is no cancellation: a caller that stops waiting ignores the completion when it comes.
    func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void)

    /// Why the capability is unavailable, as an error a person can read; `nil` (the default) when there is
    /// nothing to add. ``AuthorizedFor`` attaches it as the underlying error of
    /// `ProcedureKitError.capabilityUnavailable()`.
    func unavailableReason() -> (any Error)?

    /// Why `status` does not meet ``requirement``, as an error a person can read; `nil` (the default) when
    /// there is nothing to add. ``AuthorizedFor`` attaches it as the underlying error of
    /// `ProcedureKitError.capabilityUnauthorized()`. It must never contain a secret.
    func unauthorizedReason(for status: Status) -> (any Error)?
}

extension CapabilityProtocol {
    /// No reason: `nil`.
    public func unavailableReason() -> (any Error)? { nil }

    /// No reason: `nil`.
    public func unauthorizedReason(for status: Status) -> (any Error)? { nil }
}
