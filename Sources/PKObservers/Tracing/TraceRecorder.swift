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
/// or to one procedure with a ``TraceObserver``. By default each procedure gets a lane (track) of its own, named after
/// it, holding one slice from the moment it started executing to the moment it finished, with its type as category
/// and its status (`finished`, `failed`, `cancelled`, or `unfinished` when the trace is written before it finished),
/// errors, queue and the operating-system id of the thread that executed it as arguments. Instants mark when it was
/// enqueued (or attached) and cancelled; a short mark on a group's lane shows each moment it added a child. Flow
/// arrows lead from each dependency's end to its dependent's start, and from the moment a group (or a procedure
/// producing an operation) added a procedure to that procedure's start, so you can see why something waited. Pass
/// ``Lanes/perThread`` to ``traceData(lanes:)`` or ``writeTrace(to:lanes:)`` for a lane per thread instead, which
/// shows what ran in parallel.
///
/// Memory is bounded: the recorder keeps the most recent procedures whose events fit in ``maximumEventCount``;
/// older ones are dropped and counted (`droppedEvents`, `droppedProcedures` in the trace's `otherData`). It holds
/// no procedure strongly. Recording an independent procedure on a recorded queue costs about as much again as
/// running an empty one (the benchmark's W13 row: 1.2 to 2.3 times an empty procedure's cost on a queue); a
/// procedure with dependencies, conditions or a group role is traced by a ``TraceObserver``, which costs about four
/// times. A queue without a recorder pays nothing. Thread-safe: procedures may run and the trace may be written
/// from any threads at once.
///
/// Locks: see `TraceLockLevel` (a shard's lock, then a procedure's own; a procedure's trace is a leaf), checked in
/// debug builds.
public final class TraceRecorder: ProcedureQueueObserver {

    /// The default for ``maximumEventCount``: a million events (about 330,000 procedures), about 80 MB of records
    /// (about 240 bytes per procedure, plus names longer than 15 bytes) and 110 MB of JSON.
    public static let defaultMaximumEventCount = 1_000_000

    /// The name of the trace's process track.
    public let name: String
    /// The most events a written trace holds; the oldest procedures are dropped to stay within it.
    public let maximumEventCount: Int

    let time: ElapsedTime
    /// This recorder's number among the process's recorders: how a ``QueueTrace`` names its recorder without
    /// holding it (an address could be reused).
    let serial = TraceRecorder.serials.wrappingAdd(1, ordering: .relaxed).oldValue
    private static let serials = Atomic<UInt64>(1)
    /// The next procedure's number.
    private let nextID = Atomic<UInt64>(1)
    /// The recorder's state, in shards chosen by procedure address (see ``TraceShard``).
    private let shards: [Shard]

    /// One shard and its lock.
    private final class Shard: Sendable {
        let state: TraceLock<TraceShard>
        init(capacity: Int) { state = TraceLock(.shard, TraceShard(capacity: capacity)) }
    }

    /// How a written trace lays out its lanes (tracks).
    public enum Lanes: Sendable, Equatable {
        /// A lane per procedure, named after it, holding its slice from start to finish, its instants, and marks
        /// where it added children: procedures overlap freely in time, and slices on one lane must nest. The
        /// default.
        case perProcedure
        /// A lane per operating-system thread (named by the viewer after its id), holding what each procedure did
        /// there: a procedure that finished on the thread that executed it, before that thread started another, is
        /// a slice from start to finish; any other (one that finished later, elsewhere) is a mark where it started
        /// and a mark where it finished. Procedures that never executed are a mark where they finished; enqueue
        /// and cancel instants are left out.
        case perThread
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
    /// and not a group, through a `QueueTrace` (PKCore's instrument hook); any other through a ``TraceObserver``.
    public func procedureQueue(
        _ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?
    ) {
        // PERF(W13): most procedures need no observer (see QueueTrace): a fraction of the cost of one.
        // (The `make` closure runs under the procedure's lock: it numbers the trace with an atomic and takes no lock.)
        if !(procedure is GroupProcedure) {
            let shard = shardIndex(of: procedure)
            var made: QueueTrace?
            if procedure.attachInstrumentIfIndependent({
                let trace = QueueTrace(
                    recorder: self, id: nextID.wrappingAdd(1, ordering: .relaxed).oldValue, shard: shard)
                made = trace
                return trace
            }), let trace = made {
                register(procedure, trace: trace, queue: queue.name, producer: context as? Procedure)
                return
            }
        }
        let setup = TraceStateMachine.Setup(queue: queue.name, attachedOnEnqueue: true)
        procedure.addObserver(TraceObserver(recorder: self, setup: setup))
    }

    // MARK: - Writing the trace

    /// The trace so far, as Trace Event Format JSON (the object form, with `traceEvents`, `displayTimeUnit` and
    /// `otherData`), with its lanes laid out as `lanes` says. Procedures still running are included with the
    /// status `unfinished`, up to the event budget.
    public func traceData(lanes: Lanes = .perProcedure) -> Data {
        var kept: [TraceRecord] = []
        var dropped = (events: 0, procedures: 0)
        var unfinishedTraces: [any TraceLive] = []
        for shard in shards {
            let (keptTraces, events, procedures, observers, live) = shard.state.withLock {
                (
                    $0.buffer.kept, $0.buffer.droppedEvents, $0.buffer.droppedProcedures, $0.known.unfinished,
                    $0.live.traces
                )
            }
            // Made into records outside the shard's lock: a finished trace no longer changes.
            kept.reserveCapacity(kept.count + keptTraces.count)
            for trace in keptTraces { if let record = trace.record { kept.append(record) } }
            dropped.events += events
            dropped.procedures += procedures
            unfinishedTraces += observers
            unfinishedTraces += live as [any TraceLive]
        }
        if shards.count > 1 { kept.sort { $0.id < $1.id } }
        let now = time.traceNow()
        let unfinished = unfinishedTraces.compactMap { $0.unfinishedRecord(at: now) }.sorted { $0.id < $1.id }
        let document = TraceDocument(
            processName: name, processID: SystemThreadID.process(), maximumEventCount: maximumEventCount,
            finished: kept, unfinished: unfinished, droppedEvents: dropped.events,
            droppedProcedures: dropped.procedures)
        return Data(document.encoded(lanes: lanes))
    }

    /// Writes ``traceData(lanes:)`` to `url`, replacing any file there.
    public func writeTrace(to url: URL, lanes: Lanes = .perProcedure) throws {
        try traceData(lanes: lanes).write(to: url, options: .atomic)
    }

    /// The events dropped so far to stay within ``maximumEventCount`` (the finished procedures' events only).
    public var droppedEventCount: Int {
        shards.reduce(0) { total, shard in total + shard.state.withLock { $0.buffer.droppedEvents } }
    }

    // MARK: - For the observers

    /// Numbers `procedure`, traced by `trace`, unless this recorder traces it already (then `trace` records nothing).
    private func register(_ procedure: Procedure, trace: QueueTrace, queue: String?, producer: Procedure?) {
        let now = time.traceNow()
        let name = procedure.procedureName
        var link: TraceRecord.Link?
        if let producer, let parent = identifier(of: producer) {
            link = TraceRecord.Link(
                kind: producer is GroupProcedure ? .child : .produced, parent: parent, at: now,
                thread: SystemThreadID.current())
        }
        let outcome = shards[trace.shard].state.withLock { $0.register(trace, procedure: ObjectIdentifier(procedure)) }
        switch outcome {
        case .registered(let dependents):
            trace.registered(
                QueueTrace.Details(
                    name: name, type: type(of: procedure), queue: queue, link: link, attachedAt: now,
                    dependents: dependents))
        case .tracedAlready(let existing):
            existing?.queueIsKnown(queue)
        }
    }

    /// Numbers `procedure`, traced by `observer`, unless this recorder traces it already.
    func register(_ procedure: Procedure, observer: any TraceLive) -> (id: UInt64, KnownProcedures.Registration) {
        let id = nextID.wrappingAdd(1, ordering: .relaxed).oldValue
        let registration = shard(of: procedure).state.withLock { shard -> KnownProcedures.Registration in
            if let trace = queueTrace(of: procedure), trace.registration != .declined {
                return .tracedAlready(trace)
            }
            return shard.known.register(procedure, id: id, observer: observer)
        }
        return (id, registration)
    }

    func isTraced(_ procedure: Procedure) -> Bool {
        identifier(of: procedure) != nil
    }

    /// Links a newly registered procedure to its dependencies: the traced ones by number; for the others, it waits
    /// to hear if they are traced later.
    func links(toDependenciesOf procedure: Procedure, id: UInt64) -> TraceStateMachine.Links {
        var links = TraceStateMachine.Links()
        let dependencies = TraceLockOrder.enteringProcedureLock { procedure.dependencies }
        for dependency in dependencies where dependency is Procedure {
            let key = ObjectIdentifier(dependency)
            links.seen.append(key)
            if let traced = identifier(of: dependency, orInterestFrom: id) {
                links.resolved.append(traced)
            } else {
                links.awaiting.append(key)
            }
        }
        return links
    }

    /// The numbers of the traced procedures among `operations`, in order.
    func identifiers(of operations: [Operation]) -> [UInt64] {
        operations.compactMap { identifier(of: $0) }
    }

    /// The number of `operation`, if this recorder traces it (through an observer: while it runs or shortly after;
    /// through a queue trace: for as long as it lives). Otherwise `dependent`, if given, waits to hear if it is
    /// traced later (the caller holds `operation`, through the dependent, until it withdraws the interest).
    ///
    /// Looked for under the shard's lock, and the procedure's instrument read under it too (a procedure's lock is
    /// never held while a shard's is taken), so that a queue trace being registered either is found or finds the
    /// interest.
    private func identifier(of operation: Operation, orInterestFrom dependent: UInt64? = nil) -> UInt64? {
        shard(of: operation).state.withLock { shard in
            if let id = shard.known.identifier(of: operation) { return id }
            if let procedure = operation as? Procedure, let trace = queueTrace(of: procedure) {
                switch trace.registration {
                case .registered: return trace.id
                case .declined: return nil
                case .pending: break
                }
            }
            if let dependent { shard.known.addInterest(in: ObjectIdentifier(operation), from: dependent) }
            return nil
        }
    }

    /// `procedure`'s queue trace, if it has one of this recorder's. Takes the procedure's lock (called under a
    /// shard's, the one nesting ``TraceLockLevel`` allows).
    private func queueTrace(of procedure: Procedure) -> QueueTrace? {
        let instrument = TraceLockOrder.enteringProcedureLock { procedure.instrument }
        guard let trace = instrument as? QueueTrace, trace.recorderSerial == serial else { return nil }
        return trace
    }

    /// Stops `dependent` waiting for these dependencies to be traced.
    func withdrawInterests(in dependencies: [ObjectIdentifier], from dependent: UInt64) {
        for dependency in dependencies {
            shard(at: dependency).state.withLock { $0.known.withdrawInterest(in: dependency, from: dependent) }
        }
    }

    /// Keeps a procedure's record, finished under a ``TraceObserver``.
    func finished(_ record: TraceRecord, procedure: ObjectIdentifier) {
        let released = shard(at: procedure).state.withLock { $0.finished(record, procedure: procedure) }
        withExtendedLifetime(released) {}  // let go of here, after the lock
    }

    /// Keeps a finished queue trace.
    func finished(_ trace: QueueTrace, eventCount: Int) {
        let evicted = shards[trace.shard].state.withLock { $0.finished(trace, eventCount: eventCount) }
        withExtendedLifetime(evicted) {}  // let go of here, after the lock
    }

    private func shard(of operation: Operation) -> Shard {
        shard(at: ObjectIdentifier(operation))
    }

    /// The shard of an address: its Fibonacci hash's top bits. Low address bits are a poor choice: objects of one
    /// class allocated one after another are often a power of two apart, so they would all land in one shard.
    private func shard(at object: ObjectIdentifier) -> Shard {
        shards[shardIndex(at: object)]
    }

    private func shardIndex(of procedure: Procedure) -> Int {
        shardIndex(at: ObjectIdentifier(procedure))
    }

    private func shardIndex(at object: ObjectIdentifier) -> Int {
        let hash = UInt64(UInt(bitPattern: object)) &* 0x9E37_79B9_7F4A_7C15
        return Int(truncatingIfNeeded: hash >> 32) & (shards.count - 1)
    }
}

// PERF(W13): the queue tells the recorder of will-add-procedure only, not of three other events per procedure,
// and settles each finish in one critical section.
extension TraceRecorder: EventSelectingQueueObserver {
    package var observedQueueEvents: QueueEventKinds { .willAddProcedure }
}
