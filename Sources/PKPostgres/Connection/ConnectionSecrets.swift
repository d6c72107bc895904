#if Postgres
    import Foundation

    /// The secrets a connection string holds, and a redactor that removes them from messages.
    ///
    /// libpq and the server sometimes echo parts of a connection string back: a bad percent-escape in a URI's
    /// password (`invalid percent-encoded token: "…"`), or a URI with a mistyped scheme, which libpq takes for a
    /// database name that the server then names in `database "…" does not exist`. Every message a
    /// ``PostgresConnection`` puts in a ``PostgresError`` goes through ``redact(_:)`` first.
    ///
    /// Found: the password of every `scheme://user:password@host` URI anywhere in the string (as written and
    /// percent-decoded), `password=` in a URI's query, and the `password` and `sslpassword` keywords of the
    /// `key=value` form (as written and unquoted).
    struct ConnectionSecrets: Sendable, Hashable {
        /// The secrets, longest first (so that a secret containing another is removed whole).
        let secrets: [String]

        /// What replaces a secret.
        static let replacement = "[redacted]"

        init(_ connectionString: String) {
            var found = Set<String>()
            func add(_ secret: Substring) {
                guard !secret.isEmpty else { return }
                found.insert(String(secret))
                if let decoded = String(secret).removingPercentEncoding, !decoded.isEmpty { found.insert(decoded) }
            }
            Self.uriPasswords(in: connectionString).forEach(add)
            Self.keywordPasswords(in: connectionString).forEach(add)
            secrets = found.sorted { $0.count != $1.count ? $0.count > $1.count : $0 < $1 }
        }

        /// `message` with every secret replaced.
        func redact(_ message: String) -> String {
            secrets.reduce(message) { $0.replacingOccurrences(of: $1, with: Self.replacement) }
        }

        /// The passwords of `user:password@` and `?password=` in every URI of `text`, whatever its scheme.
        private static func uriPasswords(in text: String) -> [Substring] {
            var passwords: [Substring] = []
            var rest = text[...]
            while let schemeEnd = rest.range(of: "://") {
                let afterScheme = rest[schemeEnd.upperBound...]
                // The authority ends at the path, the query or white space; the user information at its last '@'.
                let authorityEnd =
                    afterScheme.firstIndex { $0 == "/" || $0 == "?" || $0 == " " || $0 == "'" } ?? afterScheme.endIndex
                let authority = afterScheme[..<authorityEnd]
                if let at = authority.lastIndex(of: "@"), let colon = authority[..<at].firstIndex(of: ":") {
                    passwords.append(authority[authority.index(after: colon)..<at])
                }
                let uriEnd = afterScheme.firstIndex { $0 == " " || $0 == "'" } ?? afterScheme.endIndex
                if let query = afterScheme[..<uriEnd].firstIndex(of: "?") {
                    for pair in afterScheme[afterScheme.index(after: query)..<uriEnd].split(separator: "&") {
                        let parts = pair.split(separator: "=", maxSplits: 1)
                        if parts.count == 2, parts[0] == "password" || parts[0] == "sslpassword" {
                            passwords.append(parts[1])
                        }
                    }
                }
                rest = afterScheme
            }
            return passwords
        }

        /// The values of the `password` and `sslpassword` keywords of libpq's `key=value` form, as written (quoted
        /// or not) and unquoted.
        private static func keywordPasswords(in text: String) -> [Substring] {
            var values: [Substring] = []
            let characters = Array(text)
            var index = 0
            func skipSpaces() { while index < characters.count, characters[index].isWhitespace { index += 1 } }
            while index < characters.count {
                skipSpaces()
                let keyStart = index
                while index < characters.count, characters[index] != "=", !characters[index].isWhitespace { index += 1 }
                let key = String(characters[keyStart..<index])
                skipSpaces()
                guard index < characters.count, characters[index] == "=" else {
                    index += 1
                    continue
                }
                index += 1
                skipSpaces()
                let valueStart = index
                var unquoted = ""
                if index < characters.count, characters[index] == "'" {
                    index += 1
                    while index < characters.count, characters[index] != "'" {
                        if characters[index] == "\\", index + 1 < characters.count { index += 1 }
                        unquoted.append(characters[index])
                        index += 1
                    }
                    index = min(index + 1, characters.count)
                } else {
                    while index < characters.count, !characters[index].isWhitespace {
                        unquoted.append(characters[index])
                        index += 1
                    }
                }
                if key == "password" || key == "sslpassword" {
                    values.append(Substring(String(characters[valueStart..<index])))
                    values.append(Substring(unquoted))
                }
            }
            return values
        }
    }
#endif
