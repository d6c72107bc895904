/// What a ``TraceBuffer`` holds: something standing for one finished procedure, which writes at most
/// ``eventCount`` events.
protocol TraceBufferElement {
    var eventCount: Int { get }
    /// What an evicted slot holds until the buffer compacts: nothing that keeps memory.
    static var evicted: Self { get }
}

/// The finished procedures a recorder keeps: the most recent ones whose events fit in a fixed budget.
///
/// Each element counts the most events it can write (``TraceBufferElement/eventCount``). Appending one that does
/// not fit evicts the oldest until it does; one that alone exceeds the budget is not kept. Evicted and refused
/// elements are counted, with their events. Memory is therefore bounded by the budget: an element stands for a few
/// strings and its dependencies' numbers, about 240 bytes for a typical procedure.
///
/// Not thread-safe: it lives inside the recorder's lock.
struct TraceBuffer<Element: TraceBufferElement> {
    /// The most events the kept records may write.
    let capacity: Int
    private var records: [Element] = []
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
    var kept: ArraySlice<Element> { records[head...] }

    /// Keeps `record`, evicting the oldest to make room; returns the first element evicted (or `record` itself,
    /// when it alone exceeds the budget), for the caller to release after its lock. Further evicted elements are
    /// released here.
    @discardableResult
    mutating func append(_ record: Element) -> Element? {
        let needed = record.eventCount
        guard needed <= capacity else {
            droppedEvents += needed
            droppedProcedures += 1
            return record
        }
        var firstEvicted: Element?
        while eventCount + needed > capacity {
            var oldest = Element.evicted
            // Let go of the evicted element now; the slot itself is reclaimed when compacting.
            swap(&oldest, &records[head])
            head += 1
            eventCount -= oldest.eventCount
            droppedEvents += oldest.eventCount
            droppedProcedures += 1
            if firstEvicted == nil { firstEvicted = oldest }
        }
        compactIfWorthIt()
        records.append(record)
        eventCount += needed
        return firstEvicted
    }

    /// Drops the evicted slots once they are at least half of the array: amortised O(1) per record.
    private mutating func compactIfWorthIt() {
        guard head >= 1024, head * 2 >= records.count else { return }
        records.removeFirst(head)
        head = 0
    }
}

extension TraceRecord: TraceBufferElement {
    /// An empty record left in an evicted slot.
    static let evicted = TraceRecord(
        id: 0, name: "", category: "", queue: nil, attachedOnEnqueue: false, link: nil, attachedAt: 0, startedAt: nil,
        endedAt: 0, thread: nil, cancellation: nil, status: .finished, errors: [], dependencies: [], dependents: [])
}
