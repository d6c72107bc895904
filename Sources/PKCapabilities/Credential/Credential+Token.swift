import Foundation
import PKCore

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
            if let expiresAt { text += ", expires \(expiresAt.printableDescription)" }
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

}
