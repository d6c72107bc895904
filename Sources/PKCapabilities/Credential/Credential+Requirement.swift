import Foundation

extension Capability.Credential {

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
}
