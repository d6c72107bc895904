/// An HTTP status code with a name: ProcedureKit's `HTTPStatusCode`, with its classifications.
///
/// `HTTPURLResponse.code` gives the named code of a response, or `nil` for one this enum does not name (use
/// `statusCode` for those). The codes are ProcedureKit's, the non-standard ones (440, 444, 449, 450, 495, 497, 498,
/// 499, 509, 530) included, plus 425 Too Early. ProcedureKit's misspelled names (`movedPermenantly`,
/// `unprocesssableEntity`, `urpgradeRequired`, `requestHeadersFieldTooLarge`) and its name for 103 (`checkpoint`)
/// remain as deprecated aliases of the corrected cases: code that uses them compiles, with a warning and a fix-it.
public enum HTTPStatusCode: Int, Sendable, Hashable, CaseIterable, CustomStringConvertible {
    /// 100 Continue.
    case `continue` = 100
    /// 101 Switching Protocols.
    case switchingProtocols = 101
    /// 102 Processing.
    case processing = 102
    /// 103 Early Hints.
    case earlyHints = 103
    /// 200 OK.
    case ok = 200
    /// 201 Created.
    case created = 201
    /// 202 Accepted.
    case accepted = 202
    /// 203 Non-Authoritative Information.
    case nonAuthoritativeInformation = 203
    /// 204 No Content.
    case noContent = 204
    /// 205 Reset Content.
    case resetContent = 205
    /// 206 Partial Content.
    case partialContent = 206
    /// 207 Multi-Status.
    case multiStatus = 207
    /// 208 Already Reported.
    case alreadyReported = 208
    /// 226 IM Used.
    case imUsed = 226
    /// 300 Multiple Choices.
    case multipleChoices = 300
    /// 301 Moved Permanently.
    case movedPermanently = 301
    /// 302 Found.
    case found = 302
    /// 303 See Other.
    case seeOther = 303
    /// 304 Not Modified.
    case notModified = 304
    /// 305 Use Proxy.
    case useProxy = 305
    /// 307 Temporary Redirect.
    case temporaryRedirect = 307
    /// 308 Permanent Redirect.
    case permanentRedirect = 308
    /// 400 Bad Request.
    case badRequest = 400
    /// 401 Unauthorized.
    case unauthorized = 401
    /// 402 Payment Required.
    case paymentRequired = 402
    /// 403 Forbidden.
    case forbidden = 403
    /// 404 Not Found.
    case notFound = 404
    /// 405 Method Not Allowed.
    case methodNotAllowed = 405
    /// 406 Not Acceptable.
    case notAcceptable = 406
    /// 407 Proxy Authentication Required.
    case proxyAuthenticationRequired = 407
    /// 408 Request Timeout.
    case requestTimeout = 408
    /// 409 Conflict.
    case conflict = 409
    /// 410 Gone.
    case gone = 410
    /// 411 Length Required.
    case lengthRequired = 411
    /// 412 Precondition Failed.
    case preconditionFailed = 412
    /// 413 Payload Too Large.
    case payloadTooLarge = 413
    /// 414 URI Too Long.
    case uriTooLong = 414
    /// 415 Unsupported Media Type.
    case unsupportedMediaType = 415
    /// 416 Range Not Satisfiable.
    case rangeNotSatisfiable = 416
    /// 417 Expectation Failed.
    case expectationFailed = 417
    /// 418 I'm a teapot.
    case imATeapot = 418
    /// 421 Misdirected Request.
    case misdirectedRequest = 421
    /// 422 Unprocessable Entity.
    case unprocessableEntity = 422
    /// 423 Locked.
    case locked = 423
    /// 424 Failed Dependency.
    case failedDependency = 424
    /// 425 Too Early.
    case tooEarly = 425
    /// 426 Upgrade Required.
    case upgradeRequired = 426
    /// 428 Precondition Required.
    case preconditionRequired = 428
    /// 429 Too Many Requests.
    case tooManyRequests = 429
    /// 431 Request Header Fields Too Large.
    case requestHeaderFieldsTooLarge = 431
    /// 440 Login Time-out (Microsoft IIS, non-standard).
    case iisLoginTimeout = 440
    /// 444 No Response (nginx, non-standard).
    case nginxNoResponse = 444
    /// 449 Retry With (Microsoft IIS, non-standard).
    case iisRetryWith = 449
    /// 450 Blocked by Windows Parental Controls (Microsoft, non-standard).
    case blockedByWindowsParentalControls = 450
    /// 451 Unavailable For Legal Reasons.
    case unavailableForLegalReasons = 451
    /// 495 SSL Certificate Error (nginx, non-standard).
    case nginxSSLCertificateError = 495
    /// 497 HTTP Request Sent to HTTPS Port (nginx, non-standard).
    case nginxHTTPToHTTPS = 497
    /// 498 Invalid Token (Esri, non-standard).
    case tokenExpired = 498
    /// 499 Client Closed Request (nginx, non-standard).
    case nginxClientClosedRequest = 499
    /// 500 Internal Server Error.
    case internalServerError = 500
    /// 501 Not Implemented.
    case notImplemented = 501
    /// 502 Bad Gateway.
    case badGateway = 502
    /// 503 Service Unavailable.
    case serviceUnavailable = 503
    /// 504 Gateway Timeout.
    case gatewayTimeout = 504
    /// 505 HTTP Version Not Supported.
    case httpVersionNotSupported = 505
    /// 506 Variant Also Negotiates.
    case variantAlsoNegotiates = 506
    /// 507 Insufficient Storage.
    case insufficientStorage = 507
    /// 508 Loop Detected.
    case loopDetected = 508
    /// 509 Bandwidth Limit Exceeded (Apache and cPanel, non-standard).
    case bandwidthLimitExceeded = 509
    /// 510 Not Extended.
    case notExtended = 510
    /// 511 Network Authentication Required.
    case networkAuthenticationRequired = 511
    /// 530 Site is Frozen (Pantheon, non-standard).
    case siteIsFrozen = 530

    /// 1xx.
    public var isInformational: Bool { (100..<200).contains(rawValue) }
    /// 2xx.
    public var isSuccess: Bool { (200..<300).contains(rawValue) }
    /// 3xx.
    public var isRedirection: Bool { (300..<400).contains(rawValue) }
    /// 4xx.
    public var isClientError: Bool { (400..<500).contains(rawValue) }
    /// 5xx.
    public var isServerError: Bool { (500..<600).contains(rawValue) }

    /// The reason phrase, in English.
    public var localizedReason: String {
        switch self {
        case .`continue`: "Continue"
        case .switchingProtocols: "Switching Protocols"
        case .processing: "Processing"
        case .earlyHints: "Early Hints"
        case .ok: "OK"
        case .created: "Created"
        case .accepted: "Accepted"
        case .nonAuthoritativeInformation: "Non-Authoritative Information"
        case .noContent: "No Content"
        case .resetContent: "Reset Content"
        case .partialContent: "Partial Content"
        case .multiStatus: "Multi-Status"
        case .alreadyReported: "Already Reported"
        case .imUsed: "IM Used"
        case .multipleChoices: "Multiple Choices"
        case .movedPermanently: "Moved Permanently"
        case .found: "Found"
        case .seeOther: "See Other"
        case .notModified: "Not Modified"
        case .useProxy: "Use Proxy"
        case .temporaryRedirect: "Temporary Redirect"
        case .permanentRedirect: "Permanent Redirect"
        case .badRequest: "Bad Request"
        case .unauthorized: "Unauthorized"
        case .paymentRequired: "Payment Required"
        case .forbidden: "Forbidden"
        case .notFound: "Not Found"
        case .methodNotAllowed: "Method Not Allowed"
        case .notAcceptable: "Not Acceptable"
        case .proxyAuthenticationRequired: "Proxy Authentication Required"
        case .requestTimeout: "Request Timeout"
        case .conflict: "Conflict"
        case .gone: "Gone"
        case .lengthRequired: "Length Required"
        case .preconditionFailed: "Precondition Failed"
        case .payloadTooLarge: "Payload Too Large"
        case .uriTooLong: "URI Too Long"
        case .unsupportedMediaType: "Unsupported Media Type"
        case .rangeNotSatisfiable: "Range Not Satisfiable"
        case .expectationFailed: "Expectation Failed"
        case .imATeapot: "I'm a teapot"
        case .misdirectedRequest: "Misdirected Request"
        case .unprocessableEntity: "Unprocessable Entity"
        case .locked: "Locked"
        case .failedDependency: "Failed Dependency"
        case .tooEarly: "Too Early"
        case .upgradeRequired: "Upgrade Required"
        case .preconditionRequired: "Precondition Required"
        case .tooManyRequests: "Too Many Requests"
        case .requestHeaderFieldsTooLarge: "Request Header Fields Too Large"
        case .iisLoginTimeout: "Login Time-out"
        case .nginxNoResponse: "No Response"
        case .iisRetryWith: "Retry With"
        case .blockedByWindowsParentalControls: "Blocked by Windows Parental Controls"
        case .unavailableForLegalReasons: "Unavailable For Legal Reasons"
        case .nginxSSLCertificateError: "SSL Certificate Error"
        case .nginxHTTPToHTTPS: "HTTP Request Sent to HTTPS Port"
        case .tokenExpired: "Invalid Token"
        case .nginxClientClosedRequest: "Client Closed Request"
        case .internalServerError: "Internal Server Error"
        case .notImplemented: "Not Implemented"
        case .badGateway: "Bad Gateway"
        case .serviceUnavailable: "Service Unavailable"
        case .gatewayTimeout: "Gateway Timeout"
        case .httpVersionNotSupported: "HTTP Version Not Supported"
        case .variantAlsoNegotiates: "Variant Also Negotiates"
        case .insufficientStorage: "Insufficient Storage"
        case .loopDetected: "Loop Detected"
        case .bandwidthLimitExceeded: "Bandwidth Limit Exceeded"
        case .notExtended: "Not Extended"
        case .networkAuthenticationRequired: "Network Authentication Required"
        case .siteIsFrozen: "Site is Frozen"
        }
    }

    /// The code and its reason phrase, for example "404 Not Found".
    public var description: String { "\(rawValue) \(localizedReason)" }
}

// ProcedureKit's spellings, kept so that ported code compiles; each is the corrected case.
extension HTTPStatusCode {
    /// 301: ProcedureKit's misspelling of ``movedPermanently``.
    @available(*, deprecated, renamed: "movedPermanently")
    public static let movedPermenantly = HTTPStatusCode.movedPermanently
    /// 422: ProcedureKit's misspelling of ``unprocessableEntity``.
    @available(*, deprecated, renamed: "unprocessableEntity")
    public static let unprocesssableEntity = HTTPStatusCode.unprocessableEntity
    /// 426: ProcedureKit's misspelling of ``upgradeRequired``.
    @available(*, deprecated, renamed: "upgradeRequired")
    public static let urpgradeRequired = HTTPStatusCode.upgradeRequired
    /// 431: ProcedureKit's misspelling of ``requestHeaderFieldsTooLarge``.
    @available(*, deprecated, renamed: "requestHeaderFieldsTooLarge")
    public static let requestHeadersFieldTooLarge = HTTPStatusCode.requestHeaderFieldsTooLarge
    /// 103: ProcedureKit's name (from a withdrawn draft) for ``earlyHints``.
    @available(*, deprecated, renamed: "earlyHints")
    public static let checkpoint = HTTPStatusCode.earlyHints
}
