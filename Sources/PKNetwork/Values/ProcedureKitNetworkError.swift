import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// An error from a network attempt, classified for retrying: ProcedureKit's `ProcedureKitNetworkError`.
///
/// Errors are classified by their URL loading code, whether they are `URLError`s or `NSError`s in `NSURLErrorDomain`.
/// The classifications cover what FoundationNetworking reports on Linux, where most failures have only a few
/// distinct codes: connection refused (-1004), DNS failure (-1003), reset (-1005), an empty reply (-1011), a timeout
/// (-1001), and -1 for everything else, short bodies included.
public struct ProcedureKitNetworkError: Error, Sendable, CustomStringConvertible {

    /// The error being classified.
    public let underlyingError: any Error

    /// Wraps `underlyingError`.
    public init(_ underlyingError: any Error) {
        if let wrapped = underlyingError as? ProcedureKitNetworkError {
            self = wrapped
        } else {
            self.underlyingError = underlyingError
        }
    }

    /// The underlying error's `NSError` code (a `URLError.Code` raw value for URL loading errors).
    public var errorCode: Int {
        if let urlError = underlyingError as? URLError { return urlError.errorCode }
        return (underlyingError as NSError).code
    }

    /// The URL loading code: of a `URLError`, or of an `NSError` in `NSURLErrorDomain` (FoundationNetworking does
    /// not bridge such an `NSError` to `URLError`, and ProcedureKit code and test doubles make them).
    private var urlErrorCode: URLError.Code? {
        if let urlError = underlyingError as? URLError { return urlError.code }
        let error = underlyingError as NSError
        return error.domain == NSURLErrorDomain ? URLError.Code(rawValue: error.code) : nil
    }

    /// Whether the connection failed in a way that may succeed when tried again: lost, reset, refused, an empty
    /// reply, or a transfer that ended early (FoundationNetworking's -1). ProcedureKit counted only a lost
    /// connection. ``NetworkProcedure`` retries these only for idempotent requests unless told otherwise.
    ///
    /// -1 stays transient on purpose although FoundationNetworking also reports TLS failures with it: a response cut
    /// off by the server is its commonest cause, and HTTP clients retry such read failures for idempotent requests
    /// (urllib3, the AWS SDKs, OkHttp); the attempt limit bounds what a TLS failure costs. The Networking guide has
    /// the comparison.
    public var isTransientError: Bool {
        guard let code = urlErrorCode else { return false }
        switch code {
        case .networkConnectionLost, .cannotConnectToHost, .badServerResponse, .cannotFindHost,
            .dnsLookupFailed, .notConnectedToInternet, .secureConnectionFailed:
            return true
        default:
            // -1 (`unknown`): on Linux, a response cut off mid-way (and any libcurl error without a URLError code).
            return code.rawValue == -1
        }
    }

    /// Whether the attempt timed out: a ``/PKCore/ProcedureKitError`` `timedOut` (from a `TimeoutObserver`) or
    /// `URLError.timedOut`.
    public var isTimeoutError: Bool {
        if let error = underlyingError as? ProcedureKitError, case .timedOut = error.context { return true }
        return urlErrorCode == .timedOut
    }

    /// Whether the error says the device has no usable network, so retrying should wait for connectivity.
    ///
    /// These codes are Apple's; FoundationNetworking never reports them. ``NetworkProcedure`` therefore also
    /// asks its ``ConnectivityProvider`` after a connection-level failure.
    public var waitForReachabilityChangeBeforeRetrying: Bool {
        switch urlErrorCode {
        case .notConnectedToInternet?, .internationalRoamingOff?, .callIsActive?, .dataNotAllowed?: true
        default: false
        }
    }

    /// Whether the failure happened at the connection level (no HTTP response): the transient codes and timeouts.
    public var isConnectionLevelError: Bool { isTransientError || isTimeoutError }

    /// A description naming the underlying error.
    public var description: String { "ProcedureKitNetworkError(\(underlyingError))" }
}
