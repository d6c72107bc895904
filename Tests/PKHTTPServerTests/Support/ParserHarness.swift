@testable import PKHTTPServer

/// Limits small enough to reach in a test.
let testLimits = HTTPRequestParser.Limits(
    maxRequestLineLength: 64, maxHeaderBytes: 256, maxHeaderCount: 8, maxBodyBytes: 32)

/// Feeds `bytes` in the given chunks and collects every output up to the first `needMoreBytes` after the last
/// chunk (or the first failure).
func parse(
    _ bytes: [UInt8], chunks sizes: [Int]? = nil, limits: HTTPRequestParser.Limits = testLimits
) -> [HTTPRequestParser.Output] {
    var parser = HTTPRequestParser(limits: limits)
    var outputs: [HTTPRequestParser.Output] = []
    var offset = 0
    let chunkSizes = sizes ?? [bytes.count]
    for (index, size) in chunkSizes.enumerated() {
        let end = index == chunkSizes.count - 1 ? bytes.count : min(bytes.count, offset + size)
        parser.append(bytes[offset..<end])
        offset = end
        while true {
            let output = parser.next()
            if output == .needMoreBytes { break }
            outputs.append(output)
            if case .failure = output { return outputs }
        }
    }
    outputs.append(.needMoreBytes)
    return outputs
}

/// `parse` of a string.
func parse(_ text: String, limits: HTTPRequestParser.Limits = testLimits) -> [HTTPRequestParser.Output] {
    parse(Array(text.utf8), limits: limits)
}

/// The error of the first failure among `outputs`, or `nil`.
func firstFailure(_ outputs: [HTTPRequestParser.Output]) -> HTTPParseError? {
    for output in outputs {
        if case .failure(let error) = output { return error }
    }
    return nil
}

/// The requests among `outputs`.
func requests(_ outputs: [HTTPRequestParser.Output]) -> [HTTPRequestParser.ParsedRequest] {
    outputs.compactMap { output in
        if case .request(let parsed) = output { return parsed }
        return nil
    }
}

/// A deterministic generator (SplitMix64), so that a randomized test's failure can be replayed from its seed.
struct SeededGenerator: RandomNumberGenerator {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var value = state
        value = (value ^ (value >> 30)) &* 0xBF58_476D_1CE4_E5B9
        value = (value ^ (value >> 27)) &* 0x94D0_49BB_1331_11EB
        return value ^ (value >> 31)
    }
}

/// Requests, valid and not, mutated at random: flipped, inserted and deleted bytes, fragments that matter to HTTP
/// (CR, LF, NUL, `%2e%2e`, colons, spaces), truncation and duplication.
enum RequestMutator {

    static let seeds: [String] = [
        "GET / HTTP/1.1\r\nHost: a\r\n\r\n",
        "GET /jobs/42?state=failed&q=a+b HTTP/1.1\r\nHost: a\r\nAccept: */*\r\n\r\n",
        "POST /api/retry HTTP/1.1\r\nHost: a\r\nContent-Length: 5\r\nContent-Type: text/plain\r\n\r\nhello",
        "HEAD /static/app.css HTTP/1.0\r\n\r\n",
        "GET /a/b/../c HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n",
        "PUT /x HTTP/1.1\r\nHost: a\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    ]

    static let fragments: [[UInt8]] = [
        "\r", "\n", "\r\n", "\0", " ", "\t", ":", "%", "%2e%2e", "%2F", "%00", "/..", "HTTP/1.1", "Content-Length: 9",
        "Host: b", "\r\n\r\n", "\u{7F}", "\u{FF}", "?", "&=", "Transfer-Encoding: x", "Expect: 100-continue",
    ].map { Array($0.utf8) }

    static func mutated(using generator: inout SeededGenerator) -> [UInt8] {
        var bytes = Array(seeds.randomElement(using: &generator)!.utf8)
        for _ in 0..<Int.random(in: 1...4, using: &generator) {
            let index = bytes.isEmpty ? 0 : Int.random(in: 0..<bytes.count, using: &generator)
            switch Int.random(in: 0..<7, using: &generator) {
            case 0 where !bytes.isEmpty: bytes[index] = UInt8.random(in: 0...255, using: &generator)
            case 1: bytes.insert(UInt8.random(in: 0...255, using: &generator), at: index)
            case 2 where !bytes.isEmpty: bytes.remove(at: index)
            case 3: bytes.insert(contentsOf: fragments.randomElement(using: &generator)!, at: index)
            case 4: bytes = Array(bytes.prefix(index))
            case 5: bytes += bytes.prefix(Int.random(in: 0...bytes.count, using: &generator))
            default:
                bytes = (0..<Int.random(in: 0...200, using: &generator)).map { _ in
                    UInt8.random(in: 0...255, using: &generator)
                }
            }
        }
        return bytes
    }
}
