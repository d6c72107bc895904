extension HTTPStatusCode {
    /// The code a client acts on for `statusCode`: the code itself when ``HTTPStatusCode`` names it, otherwise the
    /// x00 code of its class, as RFC 9110 §15 tells a client to treat a status code it does not recognise (so
    /// Cloudflare's 520–527 and a proxy's 599 count as 500, an unknown 4xx as 400); `nil` outside 100–599.
    ///
    /// What the retry policy asks about: without it, a 5xx that ``HTTPStatusCode`` does not name was never retried.
    static func equivalent(to statusCode: Int) -> HTTPStatusCode? {
        if let named = HTTPStatusCode(rawValue: statusCode) { return named }
        guard (100..<600).contains(statusCode) else { return nil }
        return HTTPStatusCode(rawValue: statusCode / 100 * 100)
    }
}
