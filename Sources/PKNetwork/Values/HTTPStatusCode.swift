/// An HTTP status code with a name: ProcedureKit's `HTTPStatusCode`, with its classifications.
///
/// `HTTPURLResponse.code` gives the named code of a response, or `nil` for one this enum does not name (use
/// `statusCode` for those).
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
    /// 451 Unavailable For Legal Reasons.
    case unavailableForLegalReasons = 451
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
    /// 510 Not Extended.
    case notExtended = 510
    /// 511 Network Authentication Required.
    case networkAuthenticationRequired = 511

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
        case .unavailableForLegalReasons: "Unavailable For Legal Reasons"
        case .internalServerError: "Internal Server Error"
        case .notImplemented: "Not Implemented"
        case .badGateway: "Bad Gateway"
        case .serviceUnavailable: "Service Unavailable"
        case .gatewayTimeout: "Gateway Timeout"
        case .httpVersionNotSupported: "HTTP Version Not Supported"
        case .variantAlsoNegotiates: "Variant Also Negotiates"
        case .insufficientStorage: "Insufficient Storage"
        case .loopDetected: "Loop Detected"
        case .notExtended: "Not Extended"
        case .networkAuthenticationRequired: "Network Authentication Required"
        }
    }

    /// The code and its reason phrase, for example "404 Not Found".
    public var description: String { "\(rawValue) \(localizedReason)" }
}
