/// One shard of a ``TraceRecorder``'s state, behind one lock: the procedures traced by observers whose address falls
/// in the shard, the unfinished procedures traced through the instrument hook (``QueueTrace``) whose address falls
/// in it, and what the shard keeps of those that finished, within its share of the event budget.
///
/// Sharding by address lets threads registering and finishing different procedures take different locks; keeping
/// a procedure's entry and its record in the same shard makes finishing take one lock. The recorder has one shard
/// for budgets under 100,000 events (so a small budget is exact) and up to 16 for large ones; with several,
/// "the oldest records are evicted first" holds within each shard, and so only approximately for the whole trace.
// PERF(W13): one lock for every procedure made recording threads queue on it (W13 at 5.9×W1 with one lock).
struct TraceShard {
    var known = KnownProcedures()
    /// The registered queue traces whose procedures have not finished, held strongly until they do. (A procedure
    /// on a queue always finishes, and the queue holds it until then, so this keeps nothing alive that would not
    /// be anyway.)
    var live = LiveTraces()
    var buffer: TraceBuffer<KeptTrace>

    init(capacity: Int) {
        buffer = TraceBuffer(capacity: capacity)
    }

    /// How many shards a budget of `capacity` events gets: a power of two from 1 to 16, about one per 50,000.
    static func count(forCapacity capacity: Int) -> Int {
        var count = 1
        while count < 16 && count * 2 * 50_000 <= capacity { count *= 2 }
        return count
    }

    /// How registering a queue trace went.
    enum QueueTraceRegistration {
        /// Numbered: the traced dependents that were waiting for the procedure.
        case registered(dependents: [UInt64])
        /// An observer traces the procedure already (`nil` once it finished): the trace records nothing.
        case tracedAlready((any TraceLive)?)
    }

    /// Registers `trace`, attached to `procedure`, and lists it as unfinished, unless an observer of this shard's
    /// traces the procedure already.
    mutating func register(_ trace: QueueTrace, procedure: ObjectIdentifier) -> QueueTraceRegistration {
        if case .tracedAlready(let existing)? = known.tracedAlready(procedure) {
            trace.registration = .declined
            return .tracedAlready(existing)
        }
        trace.registration = .registered
        live.insert(trace)
        return .registered(dependents: known.takeInterests(in: procedure))
    }

    /// Keeps a procedure's record, finished under a ``TraceObserver``; returns what its entry lets go of, and what
    /// the buffer evicted, for the caller to release after the lock.
    mutating func finished(
        _ record: TraceRecord, procedure: ObjectIdentifier
    ) -> (KnownProcedures.Released, KeptTrace?) {
        let released = known.procedureFinished(procedure, id: record.id)
        return (released, buffer.append(KeptTrace(KeptRecord(record))))
    }

    /// Keeps a finished queue trace; returns what the buffer evicted, for the caller to release after the lock.
    mutating func finished(_ trace: QueueTrace, eventCount: Int) -> KeptTrace? {
        live.remove(trace)
        return buffer.append(KeptTrace(trace, eventCount: eventCount))
    }
}

/// One finished procedure a shard keeps: its record (traced by an observer), or its queue trace (which holds its own
/// record), with the events it writes. Two words, whatever it holds.
struct KeptTrace: TraceBufferElement {
    enum Source {
        case record(KeptRecord)
        case trace(QueueTrace)
        case evicted
    }

    let source: Source
    let eventCount: Int

    init(_ record: KeptRecord) {
        source = .record(record)
        eventCount = record.record.eventCount
    }

    init(_ trace: QueueTrace, eventCount: Int) {
        source = .trace(trace)
        self.eventCount = eventCount
    }

    private init() {
        source = .evicted
        eventCount = 0
    }

    static var evicted: KeptTrace { KeptTrace() }

    /// The finished procedure's record.
    var record: TraceRecord? {
        switch source {
        case .record(let kept): kept.record
        case .trace(let trace): trace.finishedRecord()
        case .evicted: nil
        }
    }
}

/// A finished procedure's record, boxed so that a shard's buffer keeps one reference per procedure.
final class KeptRecord: Sendable {
    let record: TraceRecord
    init(_ record: TraceRecord) { self.record = record }
}

/// The registered queue traces of a shard whose procedures have not finished, in no particular order: each trace
/// knows its slot, so adding and removing one are O(1) and hash nothing.
///
/// Not thread-safe: it lives inside its shard's lock, which also guards each trace's ``QueueTrace/liveSlot``.
struct LiveTraces {
    private(set) var traces: [QueueTrace] = []

    mutating func insert(_ trace: QueueTrace) {
        guard trace.liveSlot < 0 else { return }
        trace.liveSlot = traces.count
        traces.append(trace)
    }

    mutating func remove(_ trace: QueueTrace) {
        let slot = trace.liveSlot
        guard slot >= 0, slot < traces.count, traces[slot] === trace else { return }
        trace.liveSlot = -1
        let last = traces.removeLast()
        if last !== trace {
            last.liveSlot = slot
            traces[slot] = last
        }
    }
}
