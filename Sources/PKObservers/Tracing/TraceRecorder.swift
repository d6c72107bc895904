import Foundation
import PKCore
import Synchronization

/// Records procedures as a timeline in the Trace Event Format, which Perfetto (ui.perfetto.dev) and
/// `chrome://tracing` open.
///
/// Attach it to a whole queue, and every procedure added to the queue is recorded, with the procedures they add:
///
/// ```swift
/// let recorder = TraceRecorder()
/// queue.addObserver(recorder)                  // held weakly: keep `recorder` alive
/// queue.add(procedures: [download, resize, upload])
/// queue.waitUntilAllOperationsAreFinished()
/// try recorder.writeTrace(to: URL(fileURLWithPath: "trace.json"))
/// ```
///
/// or to one procedure with a ``TraceObserver``. Each procedure becomes a slice on a lane (track) of its own,
/// from the moment it started executing to the moment it finished, named after the procedure, with its type as
/// category and its status (`finished`, `failed`, `cancelled`, or `unfinished` when the trace is written before
/// it finished), errors, queue and the operating-system id of the thread that executed it as arguments. Instants
/// mark when it was enqueued (or attached) and cancelled. Flow arrows lead from each dependency to its dependent,
/// and from a group (or a procedure producing an operation) to the procedures it added, so you can see why
/// something waited.
///
/// Memory is bounded: the recorder keeps the most recent procedures whose events fit in ``maximumEventCount``;
/// older ones are dropped and counted (`droppedEvents`, `droppedProcedures` in the trace's `otherData`). It holds
/// no procedure strongly. Recording costs a few hundred nanoseconds per procedure (see the benchmark's W13 row);
/// a queue without a recorder pays nothing. Thread-safe: procedures may run and the trace may be written from
/// any threads at once.
public final class TraceRecorder: ProcedureQueueObserver {

    /// The default for ``maximumEventCount``: a million events, about 60 MB of memory and 150 MB of JSON.
    public static let defaultMaximumEventCount = 1_000_000

    /// The name of the trace's process track.
    public let name: String
    /// The most events a written trace holds; the oldest procedures are dropped to stay within it.
    public let maximumEventCount: Int

    let time: ElapsedTime
    /// The next procedure's number.
    private let nextID = Atomic<UInt64>(1)
    /// The numbered procedures, in shards chosen by address, so that threads registering and finishing different
    /// procedures rarely wait for each other.
    // PERF(W13): one lock for every procedure made recording threads queue on it (W13 at 5.9×W1 with one lock).
    private let shards: [Shard]
    /// The finished procedures' records, in buffers chosen by record number, each with an even share of the event
    /// budget (one buffer for budgets under 100,000 events, so a small budget is exact; up to 16 for large ones).
    // PERF(W13): with one buffer, threads finishing procedures at once queued on its lock (W13 at 5.3×W1).
    private let buffers: [Buffer]

    /// One shard of the numbered procedures and its lock.
    private final class Shard: Sendable {
        let known = PKMutex(KnownProcedures())
    }

    /// One buffer of finished records and its lock.
    private final class Buffer: Sendable {
        let records: PKMutex<TraceBuffer>
        init(capacity: Int) { records = PKMutex(TraceBuffer(capacity: capacity)) }
    }

    private static let shardCount = 16

    /// Creates a recorder.
    ///
    /// - Parameters:
    ///   - name: The name shown for the trace's process.
    ///   - maximumEventCount: The most events a written trace holds (at least 1; the process's name takes one).
    ///   - clock: Where times come from; `nil` (the default) reads the process's monotonic clock. Tests pass
    ///     PKTesting's `ManualClock`.
    public init(
        name: String = "ProcedureKit", maximumEventCount: Int = TraceRecorder.defaultMaximumEventCount,
        clock: (any ProcedureClock)? = nil
    ) {
        self.name = name
        self.maximumEventCount = max(1, maximumEventCount)
        time = ElapsedTime(clock: clock)
        shards = (0..<Self.shardCount).map { _ in Shard() }
        let capacity = self.maximumEventCount - 1
        let bufferCount = min(16, max(1, capacity / 50_000))
        buffers = (0..<bufferCount).map { index in
            Buffer(capacity: capacity / bufferCount + (index < capacity % bufferCount ? 1 : 0))
        }
    }

    // MARK: - ProcedureQueueObserver

    /// Attaches a ``TraceObserver`` to each procedure as it is added to an observed queue.
    public func procedureQueue(
        _ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?
    ) {
        let setup = TraceStateMachine.Setup(queue: queue.name, attachedOnEnqueue: true)
        procedure.addObserver(TraceObserver(recorder: self, setup: setup))
    }

    // MARK: - Writing the trace

    /// The trace so far, as Trace Event Format JSON (the object form, with `traceEvents`, `displayTimeUnit` and
    /// `otherData`). Procedures still running are included with the status `unfinished`, up to the event budget.
    public func traceData() -> Data {
        var kept: [TraceRecord] = []
        var dropped = (events: 0, procedures: 0)
        for buffer in buffers {
            let (records, events, procedures) = buffer.records.withLock {
                ($0.kept, $0.droppedEvents, $0.droppedProcedures)
            }
            kept.append(contentsOf: records)
            dropped.events += events
            dropped.procedures += procedures
        }
        if buffers.count > 1 { kept.sort { $0.id < $1.id } }
        let unfinishedObservers = shards.flatMap { shard in shard.known.withLock { $0.unfinished } }
        let now = time.nanoseconds()
        let unfinished = unfinishedObservers.compactMap { $0.unfinishedRecord(at: now) }.sorted { $0.id < $1.id }
        let document = TraceDocument(
            processName: name, processID: SystemThreadID.process(), maximumEventCount: maximumEventCount,
            finished: kept, unfinished: unfinished, droppedEvents: dropped.events,
            droppedProcedures: dropped.procedures)
        return Data(document.encoded())
    }

    /// Writes ``traceData()`` to `url`, replacing any file there.
    public func writeTrace(to url: URL) throws {
        try traceData().write(to: url, options: .atomic)
    }

    /// The events dropped so far to stay within ``maximumEventCount`` (the finished procedures' events only).
    public var droppedEventCount: Int {
        buffers.reduce(0) { total, buffer in total + buffer.records.withLock { $0.droppedEvents } }
    }

    // MARK: - For the observers

    /// Numbers `procedure`, unless this recorder traces it already.
    func register(_ procedure: Procedure, observer: TraceObserver) -> (id: UInt64, KnownProcedures.Registration) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let registration = shard(of: procedure).known.withLock { $0.register(procedure, id: id, observer: observer) }
        return (id, registration)
    }

    func isTraced(_ procedure: Procedure) -> Bool {
        shard(of: procedure).known.withLock { $0.identifier(of: procedure) != nil }
    }

    /// Links a newly registered procedure to its dependencies: the traced ones by number; for the others, it waits
    /// to hear if they are traced later.
    func links(toDependenciesOf procedure: Procedure, id: UInt64) -> TraceStateMachine.Links {
        var links = TraceStateMachine.Links()
        for dependency in procedure.dependencies where dependency is Procedure {
            let key = ObjectIdentifier(dependency)
            links.seen.append(key)
            if let traced = shard(of: dependency).known.withLock({ $0.identifier(of: dependency, orInterestFrom: id) })
            {
                links.resolved.append(traced)
            } else {
                links.awaiting.append(key)
            }
        }
        return links
    }

    /// The numbers of the traced procedures among `operations`, in order.
    func identifiers(of operations: [Operation]) -> [UInt64] {
        operations.compactMap { operation in
            shard(of: operation).known.withLock { $0.identifier(of: operation) }
        }
    }

    /// Stops `dependent` waiting for these dependencies to be traced.
    func withdrawInterests(in dependencies: [ObjectIdentifier], from dependent: UInt64) {
        for dependency in dependencies {
            shards[Self.shardIndex(dependency)].known.withLock { $0.withdrawInterest(in: dependency, from: dependent) }
        }
    }

    /// Keeps a finished procedure's record.
    func finished(_ record: TraceRecord, procedure: ObjectIdentifier) {
        shards[Self.shardIndex(procedure)].known.withLock { $0.procedureFinished(procedure, id: record.id) }
        buffers[Int(truncatingIfNeeded: record.id % UInt64(buffers.count))].records.withLock { $0.append(record) }
    }

    private func shard(of operation: Operation) -> Shard {
        shards[Self.shardIndex(ObjectIdentifier(operation))]
    }

    /// Objects are at least 16-byte aligned: the bits above those pick the shard.
    private static func shardIndex(_ object: ObjectIdentifier) -> Int {
        Int(truncatingIfNeeded: UInt(bitPattern: object) >> 4) & (shardCount - 1)
    }
}
