/// One shard of a ``TraceRecorder``'s state, behind one lock: the procedures it numbered whose address falls in
/// the shard, and the records of those that finished, within the shard's share of the event budget.
///
/// Sharding by address lets threads registering and finishing different procedures take different locks; keeping
/// a procedure's entry and its record in the same shard makes finishing take one lock. The recorder has one shard
/// for budgets under 100,000 events (so a small budget is exact) and up to 16 for large ones; with several,
/// "the oldest records are evicted first" holds within each shard, and so only approximately for the whole trace.
// PERF(W13): one lock for every procedure made recording threads queue on it (W13 at 5.9×W1 with one lock).
struct TraceShard {
    var known = KnownProcedures()
    var buffer: TraceBuffer

    init(capacity: Int) {
        buffer = TraceBuffer(capacity: capacity)
    }

    /// How many shards a budget of `capacity` events gets: a power of two from 1 to 16, about one per 50,000.
    static func count(forCapacity capacity: Int) -> Int {
        var count = 1
        while count < 16 && count * 2 * 50_000 <= capacity { count *= 2 }
        return count
    }

    /// Keeps a finished procedure's record; returns what the procedure's entry lets go of.
    mutating func finished(_ record: TraceRecord, procedure: ObjectIdentifier) -> KnownProcedures.Released {
        let released = known.procedureFinished(procedure, id: record.id)
        buffer.append(record)
        return released
    }
}
