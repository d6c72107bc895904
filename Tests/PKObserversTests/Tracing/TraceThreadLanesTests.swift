import Foundation
import Testing

@testable import PKObservers

/// A lane per thread, from records: what each kind of procedure draws there, and how runs that would cross are
/// turned into marks.
struct TraceThreadLanesTests {

    static func record(
        _ id: UInt64, start: UInt64?, end: UInt64, thread: UInt64?, finishThread: UInt64?, inPlace: Bool,
        status: TraceRecord.Status = .finished, cancelledAt: UInt64? = nil, dependencies: [UInt64] = []
    ) -> TraceRecord {
        TraceRecord(
            id: id, name: "P\(id)", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: 0,
            startedAt: start, endedAt: end, thread: thread,
            cancellation: cancelledAt.map { TraceRecord.Cancellation(at: $0, errors: []) }, status: status, errors: [],
            dependencies: dependencies, dependents: [], finishThread: finishThread, finishedInPlace: inPlace)
    }

    static func trace(_ records: [TraceRecord], unfinished: [TraceRecord] = []) -> ParsedTrace? {
        let document = TraceDocument(
            processName: "Test", processID: 1, maximumEventCount: 1000, finished: records, unfinished: unfinished,
            droppedEvents: 0, droppedProcedures: 0)
        return ParsedTrace(Data(document.encoded(lanes: .perThread)))
    }

    static func parts(_ trace: ParsedTrace, _ name: String) -> [String] {
        trace.procedureSlices.filter { $0.name == name }.compactMap { "\($0.args["part"] ?? "?")@\($0.tid ?? -1)" }
    }

    @Test func aProcedureThatFinishedInPlaceIsOneSliceOnItsThread() throws {
        let trace = try #require(
            Self.trace([Self.record(1, start: 10, end: 20, thread: 7, finishThread: 7, inPlace: true)]))
        #expect(trace.viewerProblems == [])
        #expect(Self.parts(trace, "P1") == ["whole@7"])
        #expect(trace.procedure("P1")?.dur == 0.010)
    }

    @Test func aProcedureThatFinishedElsewhereIsAStartMarkAndAFinishMark() throws {
        let trace = try #require(
            Self.trace([Self.record(1, start: 10, end: 20, thread: 7, finishThread: 8, inPlace: false)]))
        #expect(trace.viewerProblems == [])
        #expect(Self.parts(trace, "P1") == ["start@7", "finish@8"])
    }

    @Test func aProcedureThatNeverExecutedIsAFinishMarkAndOneStillWaitingIsNotDrawn() throws {
        let cancelled = Self.record(
            1, start: nil, end: 20, thread: nil, finishThread: 9, inPlace: false, status: .cancelled, cancelledAt: 15)
        let waiting = Self.record(
            2, start: nil, end: 30, thread: nil, finishThread: nil, inPlace: false, status: .unfinished)
        let trace = try #require(Self.trace([cancelled], unfinished: [waiting]))
        #expect(trace.viewerProblems == [])
        #expect(Self.parts(trace, "P1") == ["finish@9"])
        #expect(Self.parts(trace, "P2") == [])
    }

    /// Two runs on one thread that would cross (a clock read before a hop to another thread makes a start early):
    /// the later one is drawn as marks, and the arrow between them still leaves and arrives where it should.
    @Test func aRunThatWouldCrossAnotherOnItsThreadBecomesMarks() throws {
        let first = Self.record(1, start: 10, end: 30, thread: 7, finishThread: 7, inPlace: true)
        let second = Self.record(2, start: 20, end: 40, thread: 7, finishThread: 7, inPlace: true)
        let dependent = Self.record(3, start: 50, end: 60, thread: 8, finishThread: 8, inPlace: true, dependencies: [2])
        let trace = try #require(Self.trace([first, second, dependent]))
        #expect(trace.viewerProblems == [])
        #expect(Self.parts(trace, "P1") == ["whole@7"])
        #expect(Self.parts(trace, "P2") == ["start@7", "finish@7"])
        #expect(trace.arrows("dependency").map { "\($0.from)→\($0.to)" } == ["P2→P3"])
    }

    /// A dependency's end is drawn no later than its dependent's start (it told the dependent before recording its
    /// end); with a lane per thread the arrow leaves its finish mark and reaches the dependent's run.
    @Test func aDependencyArrowLeavesTheFinishMarkOfAnAsynchronousDependency() throws {
        let dependency = Self.record(1, start: 10, end: 32, thread: 7, finishThread: 9, inPlace: false)
        let dependent = Self.record(2, start: 30, end: 40, thread: 8, finishThread: 8, inPlace: true, dependencies: [1])
        let trace = try #require(Self.trace([dependency, dependent]))
        #expect(trace.viewerProblems == [])
        #expect(trace.arrows("dependency").map { "\($0.from)→\($0.to)" } == ["P1→P2"])
    }
}
