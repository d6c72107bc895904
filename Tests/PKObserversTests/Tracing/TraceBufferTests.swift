import Testing

@testable import PKObservers

/// The finished-record buffer: the event budget, eviction of the oldest, and the counts of what was dropped.
struct TraceBufferTests {

    static func record(_ id: UInt64, dependencies: Int = 0, cancelled: Bool = false) -> TraceRecord {
        TraceRecord(
            id: id, name: "P\(id)", category: "Test", queue: nil, attachedOnEnqueue: true, link: nil, attachedAt: id,
            startedAt: id, endedAt: id + 1, thread: nil,
            cancellation: cancelled ? TraceRecord.Cancellation(at: id, errors: []) : nil, status: .finished,
            errors: [], dependencies: (0..<UInt64(dependencies)).map { $0 }, dependents: [])
    }

    @Test func recordsCountTheirLaneSliceInstantsAndTwoEventsPerFlow() {
        #expect(Self.record(1).eventCount == 3)
        #expect(Self.record(1, cancelled: true).eventCount == 4)
        #expect(Self.record(1, dependencies: 2).eventCount == 7)
    }

    @Test func recordsWithinTheBudgetAreAllKept() {
        var buffer = TraceBuffer<TraceRecord>(capacity: 9)
        for id in 1...3 { buffer.append(Self.record(UInt64(id))) }
        #expect(buffer.kept.map(\.id) == [1, 2, 3])
        #expect(buffer.eventCount == 9)
        #expect(buffer.droppedEvents == 0)
        #expect(buffer.droppedProcedures == 0)
    }

    @Test func theOldestRecordsAreEvictedToMakeRoom() {
        var buffer = TraceBuffer<TraceRecord>(capacity: 9)
        for id in 1...3 { buffer.append(Self.record(UInt64(id))) }
        buffer.append(Self.record(4, dependencies: 1))  // 5 events: evicts 1 and 2
        #expect(buffer.kept.map(\.id) == [3, 4])
        #expect(buffer.eventCount == 8)
        #expect(buffer.droppedEvents == 6)
        #expect(buffer.droppedProcedures == 2)
    }

    @Test func aRecordLargerThanTheWholeBudgetIsDroppedAndTheRestKept() {
        var buffer = TraceBuffer<TraceRecord>(capacity: 6)
        buffer.append(Self.record(1))
        buffer.append(Self.record(2, dependencies: 5))
        #expect(buffer.kept.map(\.id) == [1])
        #expect(buffer.droppedEvents == 13)
        #expect(buffer.droppedProcedures == 1)
    }

    @Test func aZeroBudgetKeepsNothing() {
        var buffer = TraceBuffer<TraceRecord>(capacity: 0)
        buffer.append(Self.record(1))
        #expect(buffer.kept.isEmpty)
        #expect(buffer.droppedProcedures == 1)
    }

    @Test func longRunsStayWithinTheBudgetAndKeepTheMostRecent() {
        var buffer = TraceBuffer<TraceRecord>(capacity: 300)
        for id in 1...10_000 { buffer.append(Self.record(UInt64(id), cancelled: id % 3 == 0)) }
        #expect(buffer.eventCount <= 300)
        #expect(buffer.eventCount == buffer.kept.reduce(0) { $0 + $1.eventCount })
        #expect(buffer.kept.last?.id == 10_000)
        #expect(buffer.kept.map(\.id) == Array(buffer.kept.map(\.id)).sorted())
        #expect(buffer.kept.count + buffer.droppedProcedures == 10_000)
    }
}
