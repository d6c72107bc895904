import Foundation
import PKCore

/// A procedure being traced, as ``KnownProcedures`` holds it until it finishes: a ``TraceObserver``, or a
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
/// PERF(W13): no `AnyProcedureObserver`, no observer list entry, no events, no per-procedure state machine: three
/// direct calls, each taking this object's own lock once. Thread-safe: its state is behind ``state``.
final class QueueTrace: ProcedureInstrument, TraceLive {

    /// What is known once the recorder has numbered the procedure; never changes afterwards.
    struct Registration: Sendable {
        let procedure: ObjectIdentifier
        let id: UInt64
        let name: String
        let category: String
        let queue: String?
        let link: TraceRecord.Link?
        let attachedAt: UInt64
        let dependents: [UInt64]
    }

    struct State: Sendable {
        /// `nil` until registered (a cancel may come first, from another thread), and after the procedure was
        /// found traced already (nothing is recorded then).
        var registration: Registration?
        var declined = false
        var finished = false
        var startedAt: UInt64?
        var thread: UInt64?
        var cancellation: TraceRecord.Cancellation?
    }

    /// The recorder, held strongly, as a ``TraceObserver`` holds it (the recorder holds this weakly).
    let recorder: TraceRecorder
    private let state = PKMutex(State())

    init(recorder: TraceRecorder) {
        self.recorder = recorder
    }

    /// Numbers the procedure; called by the recorder once this is attached.
    func registered(_ registration: Registration) {
        state.withLock { $0.registration = registration }
    }

    /// The procedure was traced already (by a ``TraceObserver`` attached before it was enqueued): record nothing.
    func decline() {
        state.withLock { $0.declined = true }
    }

    // MARK: - ProcedureInstrument

    func procedureWillExecute(_ procedure: Procedure) {
        let now = recorder.time.nanoseconds()
        let thread = SystemThreadID.current()
        state.withLock { state in
            guard state.startedAt == nil else { return }
            state.startedAt = now
            state.thread = thread
        }
    }

    func procedureDidCancel(_ procedure: Procedure, withErrors errors: [any Error]) {
        let now = recorder.time.nanoseconds()
        let described = TraceRecord.describe(errors)
        state.withLock { state in
            if state.cancellation == nil { state.cancellation = TraceRecord.Cancellation(at: now, errors: described) }
        }
    }

    func procedureDidFinish(_ procedure: Procedure, withErrors errors: [any Error]) {
        let now = recorder.time.nanoseconds()
        let described = TraceRecord.describe(errors)
        let cancelled = procedure.isCancelled
        let status: TraceRecord.Status = cancelled ? .cancelled : (described.isEmpty ? .finished : .failed)
        let record = state.withLock { state -> TraceRecord? in
            guard !state.declined, !state.finished, let registration = state.registration else { return nil }
            state.finished = true
            return Self.record(registration, state, endedAt: now, status: status, errors: described)
        }
        guard let record else { return }
        recorder.finished(record, procedure: ObjectIdentifier(procedure))
    }

    // MARK: - TraceLive

    func unfinishedRecord(at time: UInt64) -> TraceRecord? {
        state.withLock { state in
            guard !state.declined, !state.finished, let registration = state.registration else { return nil }
            return Self.record(
                registration, state, endedAt: max(time, registration.attachedAt), status: .unfinished, errors: [])
        }
    }

    /// The queue's name is known from the start.
    func queueIsKnown(_ name: String?) {}

    private static func record(
        _ registration: Registration, _ state: State, endedAt: UInt64, status: TraceRecord.Status, errors: [String]
    ) -> TraceRecord {
        TraceRecord(
            id: registration.id, name: registration.name, category: registration.category, queue: registration.queue,
            attachedOnEnqueue: true, link: registration.link, attachedAt: registration.attachedAt,
            startedAt: state.startedAt, endedAt: endedAt, thread: state.thread, cancellation: state.cancellation,
            status: status, errors: errors, dependencies: [], dependents: registration.dependents)
    }
}
