import Foundation
import PKCore

/// A procedure being traced, as a ``TraceRecorder`` lists it until it finishes: a ``TraceObserver``, or a
/// ``QueueTrace``.
protocol TraceLive: AnyObject, Sendable {
    /// The procedure's record so far, if it is traced and has not finished.
    func unfinishedRecord(at time: UInt64) -> TraceRecord?
    /// Records the queue's name when the procedure was traced before it was enqueued.
    func queueIsKnown(_ name: String?)
}

/// How a queue-level ``TraceRecorder`` traces a procedure added to its queue with neither dependencies nor
/// conditions (most of them), and that is not a group: through PKCore's ``ProcedureInstrument`` hook instead of a
/// ``TraceObserver``. It records the same slice, instants and flows: the enqueue instant, the start (just before
/// `execute()`) and its thread, a cancellation, the finish, the flow from the procedure that produced it (the
/// queue's add context), and the flows to dependents traced before it. Such a procedure has no dependency links of
/// its own to settle, and a group, whose children run on its private queue, still gets an observer (it follows
/// its children).
///
/// The trace is its own record: once the procedure finished, the recorder keeps this object in its buffer (a
/// ``TraceRecord`` is made from it only when the trace is written), and the procedure keeps it as its instrument
/// for the rest of its life, which is how the recorder recognises the procedure (a dependent traced later links to
/// it by ``id``) without a table of procedures.
///
/// It holds its recorder until the procedure finishes (as a ``TraceObserver`` does), and lets go of it then, so a
/// recorder keeping finished traces holds no reference to itself.
///
/// PERF(W13): no `AnyProcedureObserver`, no observer list entry, no events, no per-procedure state machine, no
/// table entry, and nothing copied at finish: three direct calls, each taking this object's own lock once.
///
/// Thread-safe. `@unchecked Sendable`: ``liveSlot`` and ``registration`` are guarded by the lock of the recorder's
/// shard number ``shard`` (see ``TraceShard``); everything else that changes is in `state`, behind its own lock (a
/// leaf, ``TraceLockLevel/trace``).
final class QueueTrace: ProcedureInstrument, TraceLive, @unchecked Sendable {

    /// Whether the recorder numbered the procedure through this trace; decided under the shard's lock.
    enum Registration {
        /// Attached, not yet registered: a dependent looking for the procedure now waits to hear of it.
        case pending
        case registered
        /// The recorder traced the procedure already (through a ``TraceObserver``): this records nothing.
        case declined
    }

    /// What is known once the procedure is registered; never changes afterwards.
    struct Details: Sendable {
        let name: String
        /// The procedure's type, its category (named when the trace is written).
        let type: Procedure.Type
        let queue: String?
        let link: TraceRecord.Link?
        let attachedAt: UInt64
        let dependents: [UInt64]
    }

    /// How the procedure ended.
    struct End: Sendable {
        let at: UInt64
        let status: TraceRecord.Status
        let errors: [String]
        let thread: UInt64
        let inPlace: Bool
    }

    /// What the trace knows so far. Each field is set once, by the event that learns it; `recorder` is let go of at
    /// the finish.
    // PERF(W13): optional fields updated in place, not an enum whose payloads each event would copy.
    struct State: Sendable {
        /// The recorder, until the procedure finishes.
        var recorder: TraceRecorder?
        /// Set when the recorder numbered the procedure; never when it declined to.
        var details: Details?
        var startedAt: UInt64?
        var thread: UInt64?
        var cancellation: TraceRecord.Cancellation?
        var end: End?
    }

    /// The recorder's number for the procedure.
    let id: UInt64
    /// Which recorder: its ``TraceRecorder/serial`` (an address could be reused by a later recorder).
    let recorderSerial: UInt64
    /// The recorder shard holding this trace: the procedure's.
    let shard: Int
    /// Guarded by the shard's lock.
    var registration = Registration.pending
    /// The position in the shard's list of unfinished traces, or -1; guarded by the shard's lock.
    var liveSlot = -1
    private let state: TraceLock<State>
    /// The recorder's clock, read before taking `state`'s lock: an injected clock is user code (LOCKING.md, rule 1).
    private let time: ElapsedTime

    init(recorder: TraceRecorder, id: UInt64, shard: Int) {
        self.id = id
        time = recorder.time
        recorderSerial = recorder.serial
        self.shard = shard
        state = TraceLock(.trace, State(recorder: recorder))
    }

    /// Records what the recorder knew when it numbered the procedure.
    func registered(_ details: Details) {
        state.withLock { $0.details = details }
    }

    // MARK: - ProcedureInstrument

    func procedureWillExecute(_ procedure: Procedure) {
        let thread = SystemThreadID.current()
        ThreadExecuteMark.entering(ObjectIdentifier(procedure))
        let now = time.traceNow()
        state.withLock { state in
            guard state.startedAt == nil, state.recorder != nil else { return }
            state.startedAt = now
            state.thread = thread
        }
    }

    func procedureDidCancel(_ procedure: Procedure, withErrors errors: [any Error]) {
        let described = TraceRecord.describe(errors)
        let now = time.traceNow()
        state.withLock { state in
            guard state.cancellation == nil, state.recorder != nil else { return }
            state.cancellation = TraceRecord.Cancellation(at: now, errors: described)
        }
    }

    func procedureDidFinish(_ procedure: Procedure, withErrors errors: [any Error]) {
        let described = TraceRecord.describe(errors)
        let cancelled = procedure.isCancelled
        let status: TraceRecord.Status = cancelled ? .cancelled : (described.isEmpty ? .finished : .failed)
        let thread = SystemThreadID.current()
        let inPlace = ThreadExecuteMark.isLast(ObjectIdentifier(procedure))
        let now = time.traceNow()
        // The recorder is moved out (released after the lock, and only after handing it this trace).
        let (recorder, eventCount) = state.withLock { state -> (TraceRecorder?, Int?) in
            guard let recorder = state.recorder.take() else { return (nil, nil) }
            guard let details = state.details else { return (recorder, nil) }
            state.end = End(
                at: now, status: status, errors: described, thread: thread, inPlace: inPlace && state.thread == thread)
            return (recorder, Self.eventCount(details, state))
        }
        guard let recorder, let eventCount else { return }
        recorder.finished(self, eventCount: eventCount)
    }

    // MARK: - Records

    /// The record of the finished procedure; `nil` before it finished.
    func finishedRecord() -> TraceRecord? {
        state.withLock { state in
            guard let details = state.details, let end = state.end else { return nil }
            return record(details, state, endedAt: end.at, status: end.status, errors: end.errors, end: end)
        }
    }

    /// The procedure's record so far, if it is registered and has not finished.
    func unfinishedRecord(at time: UInt64) -> TraceRecord? {
        state.withLock { state in
            guard let details = state.details, state.end == nil else { return nil }
            return record(details, state, endedAt: max(time, details.attachedAt), status: .unfinished, errors: [])
        }
    }

    /// The queue's name is known from the start.
    func queueIsKnown(_ name: String?) {}

    /// What ``TraceRecord/eventCount`` will be for the finished record.
    private static func eventCount(_ details: Details, _ state: State) -> Int {
        TraceRecord.eventCount(
            cancelled: state.cancellation != nil, flows: details.dependents.count, linked: details.link != nil)
    }

    private func record(
        _ details: Details, _ state: State, endedAt: UInt64, status: TraceRecord.Status, errors: [String],
        end: End? = nil
    ) -> TraceRecord {
        TraceRecord(
            id: id, name: details.name, category: TypeNames.name(of: details.type), queue: details.queue,
            attachedOnEnqueue: true, link: details.link, attachedAt: details.attachedAt, startedAt: state.startedAt,
            endedAt: endedAt, thread: state.thread, cancellation: state.cancellation, status: status, errors: errors,
            dependencies: [], dependents: details.dependents, finishThread: end?.thread,
            finishedInPlace: end?.inPlace ?? false)
    }
}
