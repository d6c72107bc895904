import Testing

@testable import PKObservers

/// What a trace draws, decided from all records at once: slice spans, marks, and which arrows go forwards.
struct TraceTimelineTests {

    typealias Span = TraceTimeline.Span

    /// A finished record: executed from `start` (unless `nil`) to `end`.
    static func record(
        _ id: UInt64, start: UInt64?, end: UInt64, attached: UInt64 = 0, cancelledAt: UInt64? = nil,
        finishingAt: UInt64? = nil, dependencies: [UInt64] = [], dependents: [UInt64] = [],
        link: TraceRecord.Link? = nil, status: TraceRecord.Status? = nil
    ) -> TraceRecord {
        TraceRecord(
            id: id, name: "P\(id)", category: "Test", queue: nil, attachedOnEnqueue: true, link: link,
            attachedAt: attached, startedAt: start, endedAt: end, thread: start == nil ? nil : 100 + id,
            cancellation: cancelledAt.map { TraceRecord.Cancellation(at: $0, errors: []) },
            status: status ?? (cancelledAt == nil ? .finished : .cancelled), errors: [], dependencies: dependencies,
            dependents: dependents, finishingAt: finishingAt)
    }

    @Test func anExecutedProcedureIsDrawnFromItsStartToItsFinish() {
        let timeline = TraceTimeline(records: [Self.record(1, start: 10, end: 20, attached: 5)])
        #expect(timeline.spans == [Span(begin: 10, end: 20)])
    }

    @Test func aProcedureThatNeverExecutedBeginsAtItsCancellationOrItsAttachment() {
        let timeline = TraceTimeline(records: [
            Self.record(1, start: nil, end: 40, attached: 10, cancelledAt: 25),
            Self.record(2, start: nil, end: 40, attached: 30, cancelledAt: 25),
            Self.record(3, start: nil, end: 40, attached: 10, status: .unfinished),
        ])
        #expect(timeline.spans == [Span(begin: 25, end: 40), Span(begin: 30, end: 40), Span(begin: 10, end: 40)])
    }

    /// The dependency told its dependent it had finished before its DidFinish event recorded its end, and the
    /// dependent started in between: the dependency's slice ends at that start, so the arrow goes forwards.
    @Test func aDependencyEndsNoLaterThanADependentThatStarted() {
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 10, end: 52, dependents: [2]),
            Self.record(2, start: 50, end: 60),
        ])
        #expect(timeline.spans == [Span(begin: 10, end: 50), Span(begin: 50, end: 60)])
        #expect(timeline.dependencyFlows == [TraceTimeline.DependencyFlow(source: 0, destination: 1)])
        #expect(timeline.dependenciesStillRunning.isEmpty)
    }

    /// TraceDemo's Validate → Publish: Publish is cancelled by Validate's DidFinish observer, after Validate began
    /// to finish, and finishes without executing, possibly before Validate's end is recorded. Validate's slice ends
    /// by Publish's finish, and Publish's slice (cancel to finish) begins no earlier than Validate's ends.
    @Test func aDependentCancelledAsItsDependencyFinishedIsDrawnAfterIt() {
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 10, end: 40, finishingAt: 30, dependents: [2]),
            Self.record(2, start: nil, end: 36, attached: 0, cancelledAt: 33),
        ])
        #expect(timeline.spans == [Span(begin: 10, end: 36), Span(begin: 36, end: 36)])
        #expect(timeline.dependencyFlows == [TraceTimeline.DependencyFlow(source: 0, destination: 1)])
    }

    @Test func aCancelledDependentThatFinishedLaterBeginsWhenItsDependencyEnded() {
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 10, end: 40, finishingAt: 39, dependents: [2]),
            Self.record(2, start: nil, end: 45, attached: 0, cancelledAt: 20),
        ])
        #expect(timeline.spans == [Span(begin: 10, end: 40), Span(begin: 40, end: 45)])
        #expect(timeline.dependencyFlows.count == 1)
    }

    /// Cancelled while its dependency ran, it finished at once without waiting: no arrow (it would go backwards),
    /// and its slice does not stretch back over the dependency; the dependency is listed instead.
    @Test func aDependencyTheProcedureDidNotWaitForIsListedNotDrawn() {
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 10, end: 40, finishingAt: 39, dependencies: []),
            Self.record(2, start: nil, end: 22, attached: 0, cancelledAt: 20, dependencies: [1]),
        ])
        #expect(timeline.spans == [Span(begin: 10, end: 40), Span(begin: 20, end: 22)])
        #expect(timeline.dependencyFlows.isEmpty)
        #expect(timeline.dependenciesStillRunning == [1: [1]])
    }

    @Test func aProcedureStillWaitingListsTheDependenciesItWaitsFor() {
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 10, end: 90, dependents: [2], status: .unfinished),
            Self.record(2, start: nil, end: 90, attached: 5, status: .unfinished),
        ])
        #expect(timeline.dependencyFlows.isEmpty)
        #expect(timeline.dependenciesStillRunning == [1: [1]])
    }

    @Test func aChildsMarkSitsInsideTheParentsSliceAndItsArrowGoesForwards() {
        let link = { (at: UInt64) in TraceRecord.Link(kind: .child, parent: 1, at: at, thread: 7) }
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 10, end: 90),
            Self.record(2, start: 30, end: 40, attached: 25, link: link(20)),
            // Added before the parent's slice began (its start was missed): the mark is moved inside the slice.
            Self.record(3, start: 30, end: 40, attached: 25, link: link(5)),
        ])
        #expect(timeline.marks.map(\.at) == [20, 10])
        #expect(timeline.marks.allSatisfy { $0.arrow && $0.parent == 0 && $0.kind == .child && $0.thread == 7 })
        #expect(timeline.marksMade == [[1, 0], [], []])
        #expect(timeline.addedBy == [nil, 0, 1])
    }

    @Test func aLinkOrDependencyOutsideTheTraceIsLeftOut() {
        let timeline = TraceTimeline(records: [
            Self.record(
                2, start: 30, end: 40, dependencies: [9], dependents: [8],
                link: TraceRecord.Link(kind: .produced, parent: 7, at: 20, thread: 1))
        ])
        #expect(timeline.dependencyFlows.isEmpty)
        #expect(timeline.marks.isEmpty)
        #expect(timeline.dependenciesStillRunning.isEmpty)
    }

    @Test func lanesAreWrittenByBeginThenLongerFirstThenNumber() {
        let timeline = TraceTimeline(records: [
            Self.record(3, start: 20, end: 30),
            Self.record(1, start: 20, end: 25),
            Self.record(2, start: 10, end: 50),
            Self.record(4, start: 20, end: 25),
        ])
        #expect(timeline.writingOrder.map { timeline.records[$0].id } == [2, 3, 1, 4])
    }

    @Test func atEqualBeginsTheLaneAnArrowLeavesIsWrittenBeforeTheLaneItReaches() {
        // 1 depends on 2, and both are instants at 20: 2's flow start must precede 1's flow finish in the file.
        let timeline = TraceTimeline(records: [
            Self.record(1, start: 20, end: 20, dependencies: [2]),
            Self.record(2, start: 20, end: 20),
        ])
        #expect(timeline.dependencyFlows.count == 1)
        #expect(timeline.writingOrder.map { timeline.records[$0].id } == [2, 1])
    }

    @Test func ranksFollowTheArrowsAndCutACycle() {
        #expect(TraceTimeline.ranks(count: 4, edges: [(0, 1), (1, 2), (0, 2)]) == [0, 1, 2, 0])
        #expect(TraceTimeline.ranks(count: 2, edges: [(0, 1), (1, 0)]) == [0, 0])
    }
}
