import Foundation

/// A response PKNetwork's procedures cannot use.
public enum NetworkResponseError: Error, Sendable, Equatable {
    /// The response is not an HTTP response (for example a `file://` URL's).
    case notHTTPResponse(url: URL?)
    /// The session reported neither a payload nor an error.
    case missingPayload
}
