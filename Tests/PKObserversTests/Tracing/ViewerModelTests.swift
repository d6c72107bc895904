import Foundation
import Testing

/// The tests' reading of a trace by a viewer's rules (``ViewerModel``) catches what a viewer drops or draws wrong:
/// each case here is one the recorder once wrote.
struct ViewerModelTests {

    static func trace(_ events: String) -> ParsedTrace? {
        ParsedTrace(
            Data(
                "{\"traceEvents\":[{\"name\":\"process_name\",\"ph\":\"M\",\"pid\":1,\"tid\":0,\"args\":{\"name\":\"T\"}},\(events)]}"
                    .utf8))
    }

    static func slice(_ name: String, lane: Int, ts: Double, dur: Double) -> String {
        "{\"name\":\"\(name)\",\"cat\":\"c\",\"ph\":\"X\",\"ts\":\(ts),\"dur\":\(dur),\"pid\":1,\"tid\":\(lane),\"args\":{\"status\":\"finished\"}}"
    }

    static func flow(_ ph: String, id: Int, lane: Int, ts: Double) -> String {
        let bind = ph == "f" ? ",\"bp\":\"e\"" : ""
        return
            "{\"name\":\"dependency\",\"cat\":\"dependency\",\"ph\":\"\(ph)\"\(bind),\"id\":\(id),\"ts\":\(ts),\"pid\":1,\"tid\":\(lane)}"
    }

    @Test func aFlowThatFinishesBeforeItStartsIsDropped() throws {
        // The old Validate → Publish: the finish inside Publish's slice, which began before Validate's ended.
        let trace = try #require(
            Self.trace(
                [
                    Self.slice("Validate", lane: 1, ts: 10, dur: 10), Self.slice("Publish", lane: 2, ts: 15, dur: 10),
                    Self.flow("s", id: 1, lane: 1, ts: 19.5), Self.flow("f", id: 1, lane: 2, ts: 15.5),
                ].joined(separator: ",")))
        #expect(
            trace.viewer.problems == [
                "flow 1 finishes before it starts (flow_end_without_start)", "flow 1 never finishes",
            ])
    }

    @Test func anArrowFromTheEndOfAGroupToTheStartOfItsChildIsBackwards() throws {
        // The old group → child: the start inside the group's slice, which ends after the child starts.
        let trace = try #require(
            Self.trace(
                [
                    Self.slice("Group", lane: 1, ts: 10, dur: 80), Self.slice("Child", lane: 2, ts: 25, dur: 10),
                    Self.flow("s", id: 1, lane: 1, ts: 11), Self.flow("f", id: 1, lane: 2, ts: 25.5),
                ].joined(separator: ",")))
        #expect(trace.viewer.problems.count == 2)
        #expect(trace.viewer.problems.allSatisfy { $0.contains("flow 1") })
        #expect(trace.viewer.problems.contains { $0.contains("drawn backwards") })
    }

    @Test func aFlowEventAfterAnInstantInsideItsSliceBindsToTheInstant() throws {
        let instant = "{\"name\":\"cancelled\",\"cat\":\"c\",\"ph\":\"i\",\"s\":\"t\",\"ts\":15,\"pid\":1,\"tid\":1}"
        let trace = try #require(
            Self.trace(
                [
                    Self.slice("Running", lane: 1, ts: 10, dur: 10), instant,
                    Self.slice("Next", lane: 2, ts: 30, dur: 5),
                    Self.flow("s", id: 1, lane: 1, ts: 19), Self.flow("f", id: 1, lane: 2, ts: 30),
                ].joined(separator: ",")))
        #expect(trace.viewer.problems.contains { $0.contains("binds to the instant cancelled") })
    }

    @Test func slicesThatCrossOnOneLaneAreReported() throws {
        let trace = try #require(
            Self.trace(
                [Self.slice("A", lane: 1, ts: 10, dur: 10), Self.slice("B", lane: 1, ts: 15, dur: 10)].joined(
                    separator: ",")))
        #expect(trace.viewer.problems == ["X B at 15000 crosses the end of A on lane 1"])
    }

    @Test func aWellFormedArrowHasNoProblems() throws {
        let trace = try #require(
            Self.trace(
                [
                    Self.slice("A", lane: 1, ts: 10, dur: 10), Self.flow("s", id: 1, lane: 1, ts: 10),
                    Self.slice("B", lane: 2, ts: 20, dur: 5), Self.flow("f", id: 1, lane: 2, ts: 20),
                ].joined(separator: ",")))
        #expect(trace.viewerProblems == [])
        #expect(trace.arrows("dependency").map { "\($0.from)→\($0.to)" } == ["A→B"])
    }
}
