/// The finished procedures a recorder keeps: the most recent ones whose events fit in a fixed budget.
///
/// Each record counts the most events it can write (``TraceRecord/eventCount``). Appending a record that does not
/// fit evicts the oldest records until it does; a record that alone exceeds the budget is not kept. Evicted and
/// refused records are counted, with their events. Memory is therefore bounded by the budget: a record holds a few
/// strings and its dependencies' numbers, about 200 bytes for a typical procedure.
///
/// Not thread-safe: it lives inside the recorder's lock.
struct TraceBuffer {
    /// The most events the kept records may write.
    let capacity: Int
    private var records: [TraceRecord] = []
    /// Records before `head` have been evicted (their slots are reclaimed in bulk, see ``compactIfWorthIt()``).
    private var head = 0
    /// The events the kept records may write.
    private(set) var eventCount = 0
    private(set) var droppedEvents = 0
    private(set) var droppedProcedures = 0

    init(capacity: Int) {
        self.capacity = max(0, capacity)
    }

    /// The kept records, oldest first.
    var kept: ArraySlice<TraceRecord> { records[head...] }

    mutating func append(_ record: TraceRecord) {
        let needed = record.eventCount
        guard needed <= capacity else {
            droppedEvents += needed
            droppedProcedures += 1
            return
        }
        while eventCount + needed > capacity {
            let oldest = records[head]
            // Release the evicted record's strings now; the slot itself is reclaimed when compacting.
            records[head] = TraceRecord.evicted
            head += 1
            eventCount -= oldest.eventCount
            droppedEvents += oldest.eventCount
            droppedProcedures += 1
        }
        compactIfWorthIt()
        records.append(record)
        eventCount += needed
    }

    /// Drops the evicted slots once they are at least half of the array: amortised O(1) per record.
    private mutating func compactIfWorthIt() {
        guard head >= 1024, head * 2 >= records.count else { return }
        records.removeFirst(head)
        head = 0
    }
}

extension TraceRecord {
    /// An empty record left in an evicted slot.
    static let evicted = TraceRecord(
        id: 0, name: "", category: "", queue: nil, attachedOnEnqueue: false, link: nil, attachedAt: 0, startedAt: nil,
        endedAt: 0, thread: nil, cancellation: nil, status: .finished, errors: [], dependencies: [], dependents: [])
}
