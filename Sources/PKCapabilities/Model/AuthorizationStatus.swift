/// The authorization status of a capability: whether the capability may be used, and how far.
///
/// A status is usually an enum (granted, denied, not asked, …) or a small struct. It decides for itself whether
/// it is enough for a ``Requirement``, the level of access the code asking needs:
///
/// ```swift
/// enum DiskQuota: AuthorizationStatus {
///     case none, readOnly, readWrite
///     func meets(requirement: Access?) -> Bool { … }
/// }
/// ```
///
/// Statuses cross threads (a capability reports them from any thread), so they are `Sendable`. Use ``Capability/VoidStatus``
/// for a capability that is either available or not, with nothing to authorize.
public protocol AuthorizationStatus: Sendable {
    /// What the code using the capability needs, such as a set of permissions or scopes. `Void` when there is
    /// only one level.
    associatedtype Requirement: Sendable

    /// Whether this status is enough for `requirement`; `nil` asks for the capability's least useful level.
    ///
    /// Called on whichever thread evaluates it; it must be quick and must not block.
    func meets(requirement: Requirement?) -> Bool
}
