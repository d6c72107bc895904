/// Decodes a request target in origin form (`/path?query`) into a normalised path and query items, refusing
/// what could escape a path-based router: `..` segments, encoded `/`, `\` and NUL, invalid percent-encoding,
/// and bytes that are not UTF-8 once decoded. Pure functions, no state.
enum RequestTarget {

    /// The decoded path and query items of `target`, or why it is refused.
    static func decode(_ target: ArraySlice<UInt8>) -> Result<(path: String, query: [HTTPQueryItem]), HTTPParseError> {
        guard target.first == UInt8(ascii: "/") else {
            return .failure(.badRequest("the target is not an absolute path"))
        }
        guard !target.contains(UInt8(ascii: "#")) else { return .failure(.badRequest("a fragment in the target")) }
        let question = target.firstIndex(of: UInt8(ascii: "?"))
        let rawPath = target[..<(question ?? target.endIndex)]
        let rawQuery = question.map { target[target.index(after: $0)...] } ?? []
        let path: String
        switch decodePath(rawPath) {
        case .success(let decoded): path = decoded
        case .failure(let error): return .failure(error)
        }
        switch decodeQuery(rawQuery) {
        case .success(let items): return .success((path, items))
        case .failure(let error): return .failure(error)
        }
    }

    /// `/a//b/./c/` is `/a/b/c/`; a `..` segment, even encoded, is refused.
    static func decodePath(_ raw: ArraySlice<UInt8>) -> Result<String, HTTPParseError> {
        var segments: [String] = []
        for rawSegment in raw.split(separator: UInt8(ascii: "/"), omittingEmptySubsequences: true) {
            guard let bytes = percentDecode(rawSegment, plusIsSpace: false) else {
                return .failure(.badRequest("invalid percent-encoding in the path"))
            }
            if bytes.contains(where: { $0 == 0 || $0 == UInt8(ascii: "/") || $0 == UInt8(ascii: "\\") }) {
                return .failure(.badRequest("an encoded slash, backslash or NUL in the path"))
            }
            guard let segment = String(validating: bytes, as: UTF8.self) else {
                return .failure(.badRequest("the path is not UTF-8"))
            }
            if segment == "." { continue }
            if segment == ".." { return .failure(.badRequest("a '..' segment in the path")) }
            segments.append(segment)
        }
        let trailingSlash = raw.count > 1 && raw.last == UInt8(ascii: "/") && !segments.isEmpty
        return .success("/" + segments.joined(separator: "/") + (trailingSlash ? "/" : ""))
    }

    /// `a=1&b=x+y&c` is `[a: 1, b: "x y", c: ""]`; empty items are skipped.
    static func decodeQuery(_ raw: ArraySlice<UInt8>) -> Result<[HTTPQueryItem], HTTPParseError> {
        var items: [HTTPQueryItem] = []
        for rawItem in raw.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            let equals = rawItem.firstIndex(of: UInt8(ascii: "="))
            let rawName = rawItem[..<(equals ?? rawItem.endIndex)]
            let rawValue = equals.map { rawItem[rawItem.index(after: $0)...] } ?? []
            guard let name = percentDecode(rawName, plusIsSpace: true),
                let value = percentDecode(rawValue, plusIsSpace: true)
            else {
                return .failure(.badRequest("invalid percent-encoding in the query"))
            }
            if name.contains(0) || value.contains(0) {
                return .failure(.badRequest("an encoded NUL in the query"))
            }
            guard let decodedName = String(validating: name, as: UTF8.self),
                let decodedValue = String(validating: value, as: UTF8.self)
            else {
                return .failure(.badRequest("the query is not UTF-8"))
            }
            items.append(HTTPQueryItem(name: decodedName, value: decodedValue))
        }
        return .success(items)
    }

    /// The bytes of `raw` with `%XX` decoded (and `+` as a space when asked), or `nil` when a `%` is not followed
    /// by two hexadecimal digits.
    static func percentDecode(_ raw: ArraySlice<UInt8>, plusIsSpace: Bool) -> [UInt8]? {
        var decoded: [UInt8] = []
        decoded.reserveCapacity(raw.count)
        var index = raw.startIndex
        while index < raw.endIndex {
            let byte = raw[index]
            if byte == UInt8(ascii: "%") {
                guard raw.endIndex - index >= 3, let high = hexValue(raw[index + 1]), let low = hexValue(raw[index + 2])
                else { return nil }
                decoded.append(high << 4 | low)
                index += 3
                continue
            }
            decoded.append(plusIsSpace && byte == UInt8(ascii: "+") ? UInt8(ascii: " ") : byte)
            index += 1
        }
        return decoded
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
