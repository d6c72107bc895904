import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// Traces recorded with a clock that never moves (a test's `ManualClock` left alone): every time is equal, so only
/// the order of the file tells a viewer which flow event comes first.
struct TraceStillClockTests {

    /// Runs `procedures` on a recorded queue whose clock stays at zero, and reads the trace back.
    static func trace(of procedures: [Procedure], sourceLocation: SourceLocation = #_sourceLocation) -> ParsedTrace? {
        let recorder = TraceRecorder(clock: ManualClock())
        let queue = ProcedureQueue()
        queue.addObserver(recorder)
        queue.add(procedures: procedures)
        waitForAll(procedures, sourceLocation: sourceLocation)
        waitUntilEmpty(queue, sourceLocation: sourceLocation)
        return ParsedTrace(recorder.traceData(), sourceLocation: sourceLocation)
    }

    @Test func aDependencyAddedAfterItsDependentStillHasItsArrow() throws {
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        second.addDependency(first)
        // The dependent is added first, so it has the lower number.
        let trace = try #require(Self.trace(of: [second, first]))
        #expect(trace.viewerProblems == [])
        #expect(Set(trace.arrows("dependency").map { "\($0.from)→\($0.to)" }) == ["First→Second"])
    }

    @Test func aGroupsArrowsToItsChildrenSurviveEqualTimes() throws {
        let children = (0..<3).map { TestProcedure(name: "Child \($0)") }
        let group = GroupProcedure(operations: children)
        group.name = "Group"
        let trace = try #require(Self.trace(of: [group]))
        #expect(trace.viewerProblems == [])
        #expect(trace.arrows("child").count == 3)
    }
}
