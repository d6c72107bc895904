/// A type-erased capability with status type `Status`: any ``CapabilityProtocol`` whose `Status` is `Status`.
///
/// Every member forwards to the wrapped capability, on the calling thread.
public struct AnyCapability<Status: AuthorizationStatus>: CapabilityProtocol {

    private let base: any CapabilityProtocol<Status>

    /// The name of the wrapped capability's type, such as `"FileAccess"` (used to name exclusivity categories).
    public let baseTypeName: String

    /// Wraps `base`.
    public init<Base: CapabilityProtocol>(_ base: Base) where Base.Status == Status {
        if let erased = base as? AnyCapability<Status> {
            self = erased
            return
        }
        self.base = base
        baseTypeName = String(describing: Base.self)
    }

    /// The wrapped capability's requirement.
    public var requirement: Status.Requirement? { base.requirement }

    /// Asks the wrapped capability.
    public func isAvailable() -> Bool { base.isAvailable() }

    /// Asks the wrapped capability.
    public func getAuthorizationStatus(_ completion: @escaping @Sendable (Status) -> Void) {
        base.getAuthorizationStatus(completion)
    }

    /// Asks the wrapped capability.
    public func requestAuthorization(withCompletion completion: @escaping @Sendable () -> Void) {
        base.requestAuthorization(withCompletion: completion)
    }

    /// Asks the wrapped capability.
    public func unavailableReason() -> (any Error)? { base.unavailableReason() }

    /// Asks the wrapped capability.
    public func unauthorizedReason(for status: Status) -> (any Error)? { base.unauthorizedReason(for: status) }
}
