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
/// no procedure strongly. Recording costs a few microseconds per procedure (the benchmark's W13 row: about three
/// times an empty procedure's cost on a queue), so it suits investigating real work
/// more than running always; a queue without a recorder pays nothing. Thread-safe: procedures may run and the trace may be written
/// from any threads at once.
public final class TraceRecorder: ProcedureQueueObserver {

    /// The default for ``maximumEventCount``: a million events, about 60 MB of records (184 bytes each, plus
    /// names longer than 15 bytes) and 110 MB of JSON.
    public static let defaultMaximumEventCount = 1_000_000

    /// The name of the trace's process track.
    public let name: String
    /// The most events a written trace holds; the oldest procedures are dropped to stay within it.
    public let maximumEventCount: Int

    let time: ElapsedTime
    /// The next procedure's number.
    private let nextID = Atomic<UInt64>(1)
    /// The recorder's state, in shards chosen by procedure address (see ``TraceShard``).
    private let shards: [Shard]

    /// One shard and its lock.
    private final class Shard: Sendable {
        let state: PKMutex<TraceShard>
        init(capacity: Int) { state = PKMutex(TraceShard(capacity: capacity)) }
    }

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
        let capacity = self.maximumEventCount - 1
        let count = TraceShard.count(forCapacity: capacity)
        shards = (0..<count).map { index in Shard(capacity: capacity / count + (index < capacity % count ? 1 : 0)) }
    }

    // MARK: - ProcedureQueueObserver

    /// Traces each procedure as it is added to an observed queue: one with neither dependencies nor conditions,
    /// and not a group, through a ``QueueTrace`` (PKCore's instrument hook); any other through a ``TraceObserver``.
    public func procedureQueue(
        _ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?
    ) {
        // PERF(W13): most procedures need no observer (see QueueTrace): about a third of the cost of one.
        if !(procedure is GroupProcedure) {
            let trace = QueueTrace(recorder: self)
            if procedure.attachInstrumentIfIndependent(trace) {
                register(procedure, trace: trace, queue: queue.name, producer: context as? Procedure)
                return
            }
        }
        let setup = TraceStateMachine.Setup(queue: queue.name, attachedOnEnqueue: true)
        procedure.addObserver(TraceObserver(recorder: self, setup: setup))
    }

    // MARK: - Writing the trace

    /// The trace so far, as Trace Event Format JSON (the object form, with `traceEvents`, `displayTimeUnit` and
    /// `otherData`). Procedures still running are included with the status `unfinished`, up to the event budget.
    public func traceData() -> Data {
        var kept: [TraceRecord] = []
        var dropped = (events: 0, procedures: 0)
        var unfinishedObservers: [any TraceLive] = []
        for shard in shards {
            let (records, events, procedures, observers) = shard.state.withLock {
                ($0.buffer.kept, $0.buffer.droppedEvents, $0.buffer.droppedProcedures, $0.known.unfinished)
            }
            kept.append(contentsOf: records)
            dropped.events += events
            dropped.procedures += procedures
            unfinishedObservers += observers
        }
        if shards.count > 1 { kept.sort { $0.id < $1.id } }
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
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.buffer.droppedEvents } }
    }

    // MARK: - For the observers

    /// Numbers `procedure`, traced by `trace`, unless this recorder traces it already (then `trace` records nothing).
    private func register(_ procedure: Procedure, trace: QueueTrace, queue: String?, producer: Procedure?) {
        let now = time.nanoseconds()
        let (id, registration) = register(procedure, observer: trace)
        switch registration {
        case .registered(let category, let dependents):
            var link: TraceRecord.Link?
            if let producer, let parent = identifiers(of: [producer]).first {
                link = TraceRecord.Link(kind: producer is GroupProcedure ? .child : .produced, parent: parent, at: now)
            }
            trace.registered(
                QueueTrace.Registration(
                    procedure: ObjectIdentifier(procedure), id: id, name: procedure.procedureName, category: category,
                    queue: queue, link: link, attachedAt: now, dependents: dependents))
        case .tracedAlready(let existing):
            trace.decline()
            existing?.queueIsKnown(queue)
        }
    }

    /// Numbers `procedure`, unless this recorder traces it already.
    func register(_ procedure: Procedure, observer: any TraceLive) -> (id: UInt64, KnownProcedures.Registration) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let registration = shard(of: procedure).state.withLock {
            $0.known.register(procedure, id: id, observer: observer)
        }
        return (id, registration)
    }

    func isTraced(_ procedure: Procedure) -> Bool {
        shard(of: procedure).state.withLock { $0.known.identifier(of: procedure) != nil }
    }

    /// Links a newly registered procedure to its dependencies: the traced ones by number; for the others, it waits
    /// to hear if they are traced later.
    func links(toDependenciesOf procedure: Procedure, id: UInt64) -> TraceStateMachine.Links {
        var links = TraceStateMachine.Links()
        for dependency in procedure.dependencies where dependency is Procedure {
            let key = ObjectIdentifier(dependency)
            links.seen.append(key)
            if let traced = shard(of: dependency).state.withLock({
                $0.known.identifier(of: dependency, orInterestFrom: id)
            }) {
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
            shard(of: operation).state.withLock { $0.known.identifier(of: operation) }
        }
    }

    /// Stops `dependent` waiting for these dependencies to be traced.
    func withdrawInterests(in dependencies: [ObjectIdentifier], from dependent: UInt64) {
        for dependency in dependencies {
            shard(at: dependency).state.withLock { $0.known.withdrawInterest(in: dependency, from: dependent) }
        }
    }

    /// Keeps a finished procedure's record.
    func finished(_ record: TraceRecord, procedure: ObjectIdentifier) {
        let released = shard(at: procedure).state.withLock { $0.finished(record, procedure: procedure) }
        withExtendedLifetime(released) {}  // let go of here, after the lock
    }

    private func shard(of operation: Operation) -> Shard {
        shard(at: ObjectIdentifier(operation))
    }

    /// The shard of an address: its Fibonacci hash's top bits. Low address bits are a poor choice: objects of one
    /// class allocated one after another are often a power of two apart, so they would all land in one shard.
    private func shard(at object: ObjectIdentifier) -> Shard {
        let hash = UInt64(UInt(bitPattern: object)) &* 0x9E37_79B9_7F4A_7C15
        return shards[Int(truncatingIfNeeded: hash >> 32) & (shards.count - 1)]
    }
}

// PERF(W13): the queue tells the recorder of will-add-procedure only, not of three other events per procedure,
// and settles each finish in one critical section.
extension TraceRecorder: EventSelectingQueueObserver {
    package var observedQueueEvents: QueueEventKinds { .willAddProcedure }
}
