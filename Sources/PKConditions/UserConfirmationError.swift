/// Why a ``UserConfirmationCondition`` failed.
///
/// The procedure is cancelled with it as it is.
public enum UserConfirmationError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The person declined.
    case declined
    /// Nobody could be asked; the string says why.
    case unavailable(String)

    /// A readable description.
    public var description: String {
        switch self {
        case .declined: "The user declined"
        case .unavailable(let reason): "User confirmation unavailable: \(reason)"
        }
    }
}
