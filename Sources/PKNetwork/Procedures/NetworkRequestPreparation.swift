import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// What every network procedure does to a request before handing it to its session.
enum NetworkRequestPreparation {

    /// Makes `timeoutInterval` one FoundationNetworking takes on Linux: a fractional one is rounded up to whole
    /// seconds (it truncates, so 0.5 s fired after a millisecond or so), and a NaN, infinite or huge one, on which
    /// it traps (`Int(timeoutInterval)`), becomes ``safeTimeout(_:)``'s. Elsewhere the request is unchanged.
    static func prepare(_ request: URLRequest) -> URLRequest {
        #if canImport(FoundationNetworking)
            var request = request
            request.timeoutInterval = safeTimeout(request.timeoutInterval)
            return request
        #else
            return request
        #endif
    }

    /// A timeout FoundationNetworking takes without trapping: NaN becomes its default, 60 s; anything above 1e9 s
    /// (about 31 years), infinity included, becomes 1e9 s; a positive fraction is rounded up to whole seconds.
    static func safeTimeout(_ interval: TimeInterval) -> TimeInterval {
        if interval.isNaN { return 60 }
        if interval > 1e9 { return 1e9 }
        if interval > 0, interval.rounded(.down) != interval { return interval.rounded(.up) }
        return interval
    }

    /// The status codes a validation accepts by default: 2xx.
    static let successCodes = Set(200..<300)

    /// Hops off the session's delegate queue before running user code (completion handlers).
    static func hop(_ work: @escaping @Sendable () -> Void) {
        DispatchQueue.global().async(execute: work)
    }
}
