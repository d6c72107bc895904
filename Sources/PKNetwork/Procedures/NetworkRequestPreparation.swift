import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What every network procedure does to a request before handing it to its session.
enum NetworkRequestPreparation {

    /// Rounds a fractional `timeoutInterval` up to whole seconds on Linux: FoundationNetworking truncates it to
    /// whole seconds, so 0.5 s fired after a millisecond or so. Elsewhere the request is unchanged.
    static func prepare(_ request: URLRequest) -> URLRequest {
        #if canImport(FoundationNetworking)
            var request = request
            let interval = request.timeoutInterval
            if interval > 0, interval.rounded(.down) != interval {
                request.timeoutInterval = interval.rounded(.up)
            }
            return request
        #else
            return request
        #endif
    }

    /// The status codes a validation accepts by default: 2xx.
    static let successCodes = Set(200..<300)

    /// Hops off the session's delegate queue before running user code (completion handlers).
    static func hop(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: work)
    }
}
