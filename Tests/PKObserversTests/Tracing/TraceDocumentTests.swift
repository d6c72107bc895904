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

    static func document(_ records: [TraceRecord]) -> ParsedTrace? {
        let document = TraceDocument(
            processName: "Test", processID: 1, maximumEventCount: 1000, finished: records, unfinished: [],
            droppedEvents: 0, droppedProcedures: 0)
        return ParsedTrace(Data(document.encoded()))
    }

    /// A procedure cancelled while it waited, at the very moment its dependency's slice ended: its slice, its
    /// arrow's finish and its cancel instant share one time. The arrow still binds to its slice, not the instant,
    /// because the instant is written after it.
    @Test func flowEventsAtTheTimeOfAnInstantStillBindToTheirSlice() throws {
        let dependency = TraceRecord(
            id: 1, name: "Dependency", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 0,
            startedAt: 10, endedAt: 20, thread: 7, cancellation: nil, status: .finished, errors: [], dependencies: [],
            dependents: [])
        let cancelled = TraceRecord(
            id: 2, name: "Cancelled", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 0,
            startedAt: nil, endedAt: 20, thread: nil, cancellation: TraceRecord.Cancellation(at: 20, errors: []),
            status: .cancelled, errors: [], dependencies: [1], dependents: [])
        let trace = try #require(Self.document([dependency, cancelled]))
        #expect(trace.viewerProblems == [])
        #expect(trace.arrows("dependency").map { "\($0.from)→\($0.to)" } == ["Dependency→Cancelled"])
    }

    /// Marks made in one instant by a procedure whose slice begins then too (a clock that did not move): each
    /// arrow leaves its own mark.
    @Test func marksAtTheBeginningOfTheirParentsSliceEachBindTheirOwnArrow() throws {
        let parent = TraceRecord(
            id: 1, name: "Group", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 0,
            startedAt: 10, endedAt: 50, thread: 7, cancellation: nil, status: .finished, errors: [], dependencies: [],
            dependents: [])
        let children = (2...3).map { id in
            TraceRecord(
                id: id, name: "Child \(id)", category: "Test", queue: nil, attachedOnEnqueue: false,
                link: TraceRecord.Link(kind: .child, parent: 1, at: 10, thread: 7), attachedAt: 10, startedAt: 10 + id,
                endedAt: 40, thread: 8, cancellation: nil, status: .finished, errors: [], dependencies: [],
                dependents: [])
        }
        let trace = try #require(Self.document([parent] + children))
        #expect(trace.viewerProblems == [])
        #expect(
            trace.arrows("child").map { "\($0.from)→\($0.to)" }.sorted()
                == ["add Child 2→Child 2", "add Child 3→Child 3"])
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
