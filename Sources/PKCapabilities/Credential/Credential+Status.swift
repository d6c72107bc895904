import Foundation
import PKCore

extension Capability.Credential {

    /// What the credential's store holds now. It never contains the token's value.
    public enum Status: AuthorizationStatus, Hashable, CustomStringConvertible {
        /// The store has no token.
        case missing
        /// The store's token expired at this date.
        case expired(at: Date)
        /// The store's token works, allows `scopes`, and expires in `expiresIn` (whole seconds, rounded down;
        /// `nil`: never).
        case valid(scopes: Set<String>, expiresIn: Duration?)
        /// The store could not be read; the error says why.
        case unreadable(CredentialError)

        /// `true` when the token is valid, has every scope required, and stays valid for the minimum validity.
        public func meets(requirement: Requirement?) -> Bool {
            guard case .valid(let scopes, let expiresIn) = self else { return false }
            let requirement = requirement ?? Requirement()
            guard scopes.isSuperset(of: requirement.scopes) else { return false }
            return expiresIn.map { $0 >= requirement.minimumValidity } ?? true
        }

        /// `missing`, `expired(<date>)`, `valid(scopes a b, expires in 3600 s)` or `unreadable(<reason>)`.
        public var description: String {
            switch self {
            case .missing:
                return "missing"
            case .expired(let date):
                return "expired(\(date.printableDescription))"
            case .valid(let scopes, let expiresIn):
                let scopeText = scopes.isEmpty ? "no scopes" : "scopes " + scopes.sorted().joined(separator: " ")
                return "valid(\(scopeText), " + (expiresIn.map { "expires in \($0.readable)" } ?? "no expiry") + ")"
            case .unreadable(let error):
                return "unreadable(\(error))"
            }
        }
    }
}
