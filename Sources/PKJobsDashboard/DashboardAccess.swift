#if Postgres
    import Foundation
    import PKHTTPServer

    /// Who may use the dashboard, and how a request proves it.
    ///
    /// - With a token (`PK_JOBS_TOKEN`), a request carries it as `Authorization: Bearer <token>`, or a browser
    ///   opens `/?token=<token>` once and is given a session cookie (`HttpOnly`, `SameSite=Strict`) whose value is a
    ///   random secret of this process, never the token. Anything else gets 401.
    /// - Without a token (allowed on a loopback address only), every request on the machine is let in.
    /// - A state-changing request (`POST`) not authenticated by the bearer token must carry the page's CSRF token in
    ///   `X-CSRF-Token` (403 without): another site's page can make a browser send the cookie, never the header.
    /// - On a loopback address, the `Host` header must name a loopback host (403 otherwise), so that a site whose
    ///   name resolves to 127.0.0.1 (DNS rebinding) cannot read the API through the browser.
    ///
    /// Thread-safe: immutable.
    package struct DashboardAccess: Sendable {
        /// How a request was let in.
        package enum Decision: Sendable {
            /// Let in; `byBearer` when it carried the token itself (no CSRF token needed then).
            case allowed(byBearer: Bool)
            /// Answer with this instead (a 401 or 403, or the redirect that sets the session cookie).
            case answered(HTTPResponse)
        }

        /// The name of the session cookie.
        package static let cookieName = "pk_jobs_session"

        let token: String?
        let loopback: Bool
        /// The session cookie's value: random, made at start.
        let session: String
        /// The page's CSRF token: random, made at start.
        package let csrfToken: String

        /// Access with `token` (`nil`: none), for a server bound to a loopback address or not.
        package init(token: String?, loopback: Bool) {
            self.token = token.flatMap { $0.isEmpty ? nil : $0 }
            self.loopback = loopback
            session = Self.randomHex(bytes: 32)
            csrfToken = Self.randomHex(bytes: 32)
        }

        /// Decides whether `request` may go on.
        package func check(_ request: HTTPRequest) -> Decision {
            if loopback, !Self.isLoopbackHost(request.headers["Host"]) {
                return .answered(
                    Self.error(.forbidden, "the Host header must name this machine (127.0.0.1, localhost)"))
            }
            var byBearer = false
            if let token {
                // The scheme's name is case-insensitive (RFC 9110).
                let bearer = request.headers["Authorization"].flatMap { value -> String? in
                    value.count > 7 && value.prefix(7).lowercased() == "bearer " ? String(value.dropFirst(7)) : nil
                }
                let offered = request.method == "GET" && request.path == "/" ? request.queryValue("token") : nil
                if let offered, Self.equal(offered, token) {
                    // Whatever else the request carries, the token leaves the address bar (and the history) at once:
                    // the cookie stands for it from now on.
                    var response = HTTPResponse(status: .seeOther, headers: ["Location": "/"])
                    response.headers["Set-Cookie"] =
                        "\(Self.cookieName)=\(session); Path=/; HttpOnly; SameSite=Strict"
                    return .answered(response)
                } else if let bearer, Self.equal(bearer, token) {
                    byBearer = true
                } else if Self.cookies(Self.cookieName, in: request.headers.values(for: "Cookie")).contains(where: {
                    Self.equal($0, session)
                }) {
                    byBearer = false
                } else {
                    var response = Self.error(
                        .unauthorized,
                        "a token is needed: send Authorization: Bearer <token>, or open /?token=<token> once")
                    response.headers["WWW-Authenticate"] = "Bearer"
                    return .answered(response)
                }
            }
            if request.method != "GET", request.method != "HEAD", !byBearer {
                guard let offered = request.headers["X-CSRF-Token"], Self.equal(offered, csrfToken) else {
                    return .answered(Self.error(.forbidden, "a state-changing request needs the page's X-CSRF-Token"))
                }
            }
            return .allowed(byBearer: byBearer)
        }

        /// A JSON error answer: `{"error": message}`.
        package static func error(_ status: HTTPStatus, _ message: String) -> HTTPResponse {
            let body = (try? JSONSerialization.data(withJSONObject: ["error": message])) ?? Data("{}".utf8)
            return .json(body, status: status)
        }

        /// Whether a `Host` header names a loopback host (any port).
        package static func isLoopbackHost(_ host: String?) -> Bool {
            guard let host, !host.isEmpty else { return false }
            let name: Substring
            if host.hasPrefix("[") {
                name = host.split(separator: "]", maxSplits: 1).first.map { $0.dropFirst() } ?? ""
            } else {
                name = host.split(separator: ":", maxSplits: 1).first ?? ""
            }
            return ["127.0.0.1", "localhost", "::1"].contains(name.lowercased())
        }

        /// Whether a listening address is a loopback one: `localhost`, `::1`, or a numeric `127.a.b.c` (a name that
        /// merely starts with `127.` may resolve anywhere).
        package static func isLoopbackAddress(_ address: String) -> Bool {
            if address == "localhost" || address == "::1" { return true }
            let parts = address.split(separator: ".", omittingEmptySubsequences: false)
            return parts.count == 4 && parts[0] == "127"
                && parts.allSatisfy { part in part.count <= 3 && UInt8(part).map { _ in true } ?? false }
        }

        /// Every value of cookie `name` among `Cookie` headers (another site on `localhost`, whose cookies share
        /// the name's space whatever the port, may have set one of its own).
        static func cookies(_ name: String, in headers: [String]) -> [String] {
            headers.flatMap { header in
                header.split(separator: ";").compactMap { pair -> String? in
                    let parts = pair.split(separator: "=", maxSplits: 1)
                    guard parts.count == 2, parts[0].trimmingCharacters(in: .whitespaces) == name else { return nil }
                    return parts[1].trimmingCharacters(in: .whitespaces)
                }
            }
        }

        /// Compares in time that depends on the lengths only, not on where the texts first differ.
        static func equal(_ lhs: String, _ rhs: String) -> Bool {
            let left = Array(lhs.utf8)
            let right = Array(rhs.utf8)
            guard left.count == right.count else { return false }
            var difference: UInt8 = 0
            for index in left.indices { difference |= left[index] ^ right[index] }
            return difference == 0
        }

        static func randomHex(bytes: Int) -> String {
            var generator = SystemRandomNumberGenerator()
            return (0..<bytes).map { _ in String(format: "%02x", UInt8.random(in: 0...255, using: &generator)) }
                .joined()
        }
    }
#endif
