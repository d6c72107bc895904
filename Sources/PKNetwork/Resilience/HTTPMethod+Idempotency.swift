import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

extension URLRequest {
    /// Whether the request's method is idempotent (RFC 9110 §9.2.2): GET (the default), HEAD, PUT, DELETE,
    /// OPTIONS or TRACE.
    var isIdempotent: Bool {
        switch (httpMethod ?? "GET").uppercased() {
        case "GET", "HEAD", "PUT", "DELETE", "OPTIONS", "TRACE": true
        default: false
        }
    }
}
