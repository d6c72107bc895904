import Foundation
import PKCore

/// Why a ``Capability/Credential`` has no usable token, or why authorizing it failed.
///
/// No case ever holds the token's value. Reasons that come from your code (the authorize step's error, a
/// store's error) are reported as their descriptions, with any occurrence of the credential's current token
/// replaced by `<redacted>`.
public enum CredentialError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The store has no token.
    case missing(credential: String, source: String)
    /// The store's token expired.
    case expired(credential: String, at: Date)
    /// The token lacks scopes the requirement names.
    case insufficientScopes(credential: String, missing: Set<String>)
    /// The token expires sooner than the requirement's minimum validity.
    case expiresTooSoon(credential: String, expiresIn: Duration, needed: Duration)
    /// The store could not be read.
    case unreadable(credential: String, reason: String)
    /// The credential has no authorize step, so requesting authorization cannot get a token.
    case noAuthorizeStep(credential: String, source: String)
    /// The authorize step threw or reported an error.
    case authorizeFailed(credential: String, reason: String)
    /// The authorize step did not answer within the credential's `authorizeTimeout`.
    case authorizeTimedOut(credential: String, after: Duration)
    /// The authorize step was abandoned by ``Capability/Credential/cancelAuthorization()``.
    case authorizeCancelled(credential: String)
    /// The authorize step returned a token, but the store could not save it.
    case saveFailed(credential: String, reason: String)

    /// This error with `transform` applied to its free-text reason (the cases that carry one).
    func mappingReason(_ transform: (String) -> String) -> CredentialError {
        switch self {
        case .unreadable(let name, let reason): .unreadable(credential: name, reason: transform(reason))
        case .authorizeFailed(let name, let reason): .authorizeFailed(credential: name, reason: transform(reason))
        case .saveFailed(let name, let reason): .saveFailed(credential: name, reason: transform(reason))
        case .missing, .expired, .insufficientScopes, .expiresTooSoon, .noAuthorizeStep, .authorizeTimedOut,
            .authorizeCancelled:
            self
        }
    }

    /// A readable description, without the token.
    public var description: String {
        switch self {
        case .missing(let name, let source):
            return "The credential \(name) has no token (looked in \(source))"
        case .expired(let name, let date):
            return "The token of \(name) expired at \(date.printableDescription)"
        case .insufficientScopes(let name, let missing):
            return "The token of \(name) lacks the scopes \(missing.sorted().joined(separator: ", "))"
        case .expiresTooSoon(let name, let expiresIn, let needed):
            return "The token of \(name) expires in \(expiresIn.readable), sooner than the \(needed.readable) required"
        case .unreadable(let name, let reason):
            return "The token of \(name) could not be read: \(reason)"
        case .noAuthorizeStep(let name, let source):
            return "The credential \(name) has no authorize step: provide a token in \(source)"
        case .authorizeFailed(let name, let reason):
            return "Authorizing \(name) failed: \(reason)"
        case .authorizeTimedOut(let name, let after):
            return "Authorizing \(name) did not finish within \(after.readable)"
        case .authorizeCancelled(let name):
            return "Authorizing \(name) was cancelled"
        case .saveFailed(let name, let reason):
            return "The new token of \(name) could not be saved: \(reason)"
        }
    }
}
