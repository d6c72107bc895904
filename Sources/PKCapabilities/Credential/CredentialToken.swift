import Foundation

extension Capability.Credential {

    /// A bearer token for a web service, with when it expires and what it allows.
    ///
    /// The token's value never appears in a description, a debug description, a mirror (`dump`, the debugger's
    /// summary) or string interpolation: all of them show `<redacted>`. Read it with ``revealedValue`` where it
    /// is needed, such as an `Authorization` header.
    public struct Token: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {

        private let value: String

        /// When the token stops working; `nil` if it does not expire (or nobody knows).
        public let expiresAt: Date?

        /// What the token allows, in the service's terms (OAuth scopes, say).
        public let scopes: Set<String>

        /// Creates a token.
        ///
        /// - Parameters:
        ///   - value: The secret.
        ///   - expiresAt: When it expires; `nil` for never.
        ///   - scopes: What it allows.
        public init(_ value: String, expiresAt: Date? = nil, scopes: Set<String> = []) {
            self.value = value
            self.expiresAt = expiresAt
            self.scopes = scopes
        }

        /// The secret itself. Pass it to the service and nowhere else: never log it.
        public var revealedValue: String { value }

        /// `Token(<redacted>, expires <date>, scopes a b)`.
        public var description: String {
            var text = "Token(<redacted>"
            if let expiresAt { text += ", expires \(expiresAt)" }
            if !scopes.isEmpty { text += ", scopes \(scopes.sorted().joined(separator: " "))" }
            return text + ")"
        }

        /// The same as ``description``.
        public var debugDescription: String { description }

        /// The expiry and the scopes; never the value.
        public var customMirror: Mirror {
            Mirror(self, children: ["value": "<redacted>", "expiresAt": expiresAt as Any, "scopes": scopes])
        }
    }

    /// What the code using the credential needs of its token.
    public struct Requirement: Hashable, Sendable, CustomStringConvertible {
        /// Scopes the token must include.
        public var scopes: Set<String>
        /// How long the token must still be valid when checked, so that it does not expire mid-job.
        public var minimumValidity: Duration

        /// Creates a requirement.
        public init(scopes: Set<String> = [], validFor minimumValidity: Duration = .zero) {
            self.scopes = scopes
            self.minimumValidity = minimumValidity
        }

        /// `scopes a b, valid for 60 s`.
        public var description: String {
            "scopes \(scopes.isEmpty ? "none" : scopes.sorted().joined(separator: " ")), valid for \(minimumValidity.readable)"
        }
    }

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
                return "expired(\(date))"
            case .valid(let scopes, let expiresIn):
                let scopeText = scopes.isEmpty ? "no scopes" : "scopes " + scopes.sorted().joined(separator: " ")
                return "valid(\(scopeText), " + (expiresIn.map { "expires in \($0.readable)" } ?? "no expiry") + ")"
            case .unreadable(let error):
                return "unreadable(\(error))"
            }
        }
    }
}
