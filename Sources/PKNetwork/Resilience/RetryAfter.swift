import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Reads a `Retry-After` header: delay-seconds or an HTTP-date (RFC 9110 §10.2.3).
enum RetryAfter {

    /// The wait the response asks for, in seconds from `now`, or `nil` when it has no usable header.
    static func interval(in response: HTTPURLResponse, now: Date = Date()) -> TimeInterval? {
        guard let value = response.value(forHTTPHeaderField: "Retry-After") else { return nil }
        return interval(parsing: value, now: now)
    }

    static func interval(parsing value: String, now: Date) -> TimeInterval? {
        let trimmed = value.trimmingCharacters(in: .whitespaces)
        if let seconds = Int(trimmed) { return seconds >= 0 ? TimeInterval(seconds) : nil }
        let formatter = DateFormatter()
        formatter.locale = Locale(identifier: "en_US_POSIX")
        formatter.timeZone = TimeZone(identifier: "GMT")
        formatter.dateFormat = "EEE, dd MMM yyyy HH:mm:ss zzz"
        guard let date = formatter.date(from: trimmed) else { return nil }
        return max(0, date.timeIntervalSince(now))
    }
}
