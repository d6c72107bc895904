import Foundation
import Testing

@testable import PKObservers

/// The JSON writer: numbers, strings, and where flow events are placed.
struct TraceDocumentTests {

    static func text(_ build: (inout JSONText) -> Void) -> String {
        var json = JSONText()
        build(&json)
        return String(decoding: json.bytes, as: UTF8.self)
    }

    @Test(arguments: [
        (UInt64(0), "0.000"), (1, "0.001"), (999, "0.999"), (1_000, "1.000"), (1_234_567, "1234.567"),
        (UInt64.max, "18446744073709551.615"),
    ])
    func nanosecondsAreWrittenAsExactMicroseconds(_ nanoseconds: UInt64, _ expected: String) {
        #expect(Self.text { $0.microseconds(nanoseconds) } == expected)
    }

    @Test func stringsAreEscapedAndParseBack() throws {
        let original = "a\"b\\c\nd\re\tf\u{1}g\u{1F}h é ✓ 🚀"
        let written = Self.text { $0.string(original) }
        #expect(written.contains("\\u0001"))
        #expect(written.contains("\\u001f"))
        let parsed = try JSONSerialization.jsonObject(with: Data("[\(written)]".utf8), options: []) as? [String]
        #expect(parsed == [original])
    }

    static func record(_ id: UInt64, begin: UInt64?, end: UInt64) -> TraceRecord {
        TraceRecord(
            id: id, name: "P\(id)", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 0,
            startedAt: begin, endedAt: end, thread: nil, cancellation: nil, status: .finished, errors: [],
            dependencies: [], dependents: [])
    }

    @Test func flowEventsSitStrictlyInsideTheirSlices() {
        let long = Self.record(1, begin: 10_000, end: 20_000)
        #expect(TraceDocument.insideEnd(of: long) == 19_500)
        #expect(TraceDocument.inside(long, near: 10_000) == 10_500)
        #expect(TraceDocument.inside(long, near: 15_000) == 15_000)
        #expect(TraceDocument.inside(long, near: 90_000) == 19_500)
        let short = Self.record(2, begin: 100, end: 300)
        #expect(TraceDocument.insideEnd(of: short) == 200)
        #expect(TraceDocument.inside(short, near: 0) == 200)
        let empty = Self.record(3, begin: 50, end: 50)
        #expect(TraceDocument.insideEnd(of: empty) == 50)
        #expect(TraceDocument.inside(empty, near: 0) == 50)
    }

    @Test func aProcedureThatNeverExecutedBeginsAtItsCancellation() {
        let cancelled = TraceRecord(
            id: 1, name: "P", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 10,
            startedAt: nil, endedAt: 40, thread: nil, cancellation: TraceRecord.Cancellation(at: 25, errors: []),
            status: .cancelled, errors: [], dependencies: [], dependents: [])
        #expect(cancelled.beganAt == 25)
        let unfinished = TraceRecord(
            id: 2, name: "P", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 10,
            startedAt: nil, endedAt: 40, thread: nil, cancellation: nil, status: .unfinished, errors: [],
            dependencies: [], dependents: [])
        #expect(unfinished.beganAt == 10)
    }

    @Test func errorDescriptionsAreBounded() {
        struct Long: Error, CustomStringConvertible { var description: String { String(repeating: "x", count: 1000) } }
        let described = TraceRecord.describe(Array(repeating: Long(), count: 20))
        #expect(described.count == TraceRecord.maximumErrorsKept + 1)
        #expect(described.first?.count == TraceRecord.maximumErrorLength + 1)
        #expect(described.last == "… and 12 more")
        #expect(TraceRecord.describe([]).isEmpty)
    }
}
