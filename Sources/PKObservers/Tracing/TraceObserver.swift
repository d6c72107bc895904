import Foundation
import PKCore

/// The observer that records one procedure into a ``TraceRecorder``: its slice, its instants, and the flows from
/// its dependencies and from the procedure that added it.
///
/// A queue-level recorder attaches one to every procedure added to the queue. Attach one yourself to trace a
/// procedure that is not on a recorded queue:
///
/// ```swift
/// let recorder = TraceRecorder()
/// procedure.addObserver(TraceObserver(recorder: recorder))
/// ```
///
/// It follows the procedure's children: for each procedure the traced one is about to add (a group's children,
/// an operation it produces), another `TraceObserver` is attached, linked to this one. One observer traces one
/// procedure; attaching it to a second is refused with a warning, and a procedure the recorder already traces
/// is not traced twice. The observer holds its recorder, so a recorder stays alive while procedures it traces run.
/// Callbacks run on the thread delivering the procedure's events and take two short locks at most; no user code
/// runs under them. Cancellation is recorded (as an instant), not acted on. Thread-safe.
public final class TraceObserver: ProcedureObserver, TraceLive {

    /// The recorder, held strongly (loading a weak reference would be an atomic operation on the recorder's side
    /// table, shared by every thread recording, at every event). The recorder holds running observers weakly, so
    /// there is no cycle.
    let recorder: TraceRecorder
    private let time: ElapsedTime
    private let machine: TraceLock<TraceStateMachine>

    /// Creates an observer recording into `recorder`.
    public convenience init(recorder: TraceRecorder) {
        self.init(recorder: recorder, setup: TraceStateMachine.Setup(queue: nil, attachedOnEnqueue: false))
    }

    init(recorder: TraceRecorder, setup: TraceStateMachine.Setup) {
        self.recorder = recorder
        time = recorder.time
        machine = TraceLock(.trace, TraceStateMachine(setup: setup))
    }

    // MARK: - ProcedureObserver

    /// Registers the procedure with the recorder (numbering it) and records when it was attached.
    public func didAttach(to procedure: Procedure) {
        let key = ObjectIdentifier(procedure)
        switch machine.withLock({ $0.attachBegan(key) }) {
        case .declineSecondAttachment:
            procedure.log.warning("a TraceObserver traces one procedure; this attachment is not traced")
        case .register(let setup):
            let now = time.traceNow()
            let (id, registration) = recorder.register(procedure, observer: self)
            switch registration {
            case .registered(let category, let dependents):
                let name = procedure.procedureName
                var links = recorder.links(toDependenciesOf: procedure, id: id)
                links.dependents = dependents
                machine.withLock {
                    $0.registered(key, id: id, name: name, category: category, at: now, links: links)
                }
            case .tracedAlready(let existing):
                machine.withLock { $0.registrationRefused(key) }
                existing?.queueIsKnown(setup.queue)
            }
        }
    }

    /// Records when the procedure started executing.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        let now = time.traceNow()
        machine.withLock { $0.willExecute(ObjectIdentifier(procedure), at: now) }
    }

    /// Records the thread `execute()` ran on, and marks it as this procedure's (see `ThreadExecuteMark`).
    public func did(execute procedure: Procedure) {
        let thread = SystemThreadID.current()
        let key = ObjectIdentifier(procedure)
        ThreadExecuteMark.entering(key)
        machine.withLock { $0.didExecute(key, thread: thread) }
    }

    /// Records when the procedure was cancelled, and with which errors.
    public func did(cancel procedure: Procedure, withErrors errors: [any Error]) {
        let now = time.traceNow()
        let described = TraceRecord.describe(errors)
        machine.withLock { $0.didCancel(ObjectIdentifier(procedure), at: now, errors: described) }
    }

    /// Attaches a linked observer to a procedure about to be added, unless the recorder traces it already.
    public func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        guard let child = newOperation as? Procedure else { return }
        let now = time.traceNow()
        let thread = SystemThreadID.current()
        let kind: TraceRecord.LinkKind = procedure is GroupProcedure ? .child : .produced
        guard
            let link = machine.withLock({
                $0.linkForChild(of: ObjectIdentifier(procedure), kind: kind, at: now, thread: thread)
            }),
            !recorder.isTraced(child)
        else { return }
        child.addObserver(
            TraceObserver(recorder: recorder, setup: TraceStateMachine.Setup(attachedOnEnqueue: false, link: link)))
    }

    /// Records when the procedure began to finish, links the dependencies it gained since it was attached (while it
    /// still holds them), and stops waiting for the ones that were never traced.
    public func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        let now = time.traceNow()
        let key = ObjectIdentifier(procedure)
        guard let (id, links) = machine.withLock({ $0.linksToSettle(key) }) else { return }
        let gained = procedure.dependencies.filter { dependency in
            dependency is Procedure && !links.seen.contains(ObjectIdentifier(dependency))
        }
        let added = gained.isEmpty ? [] : recorder.identifiers(of: gained)
        if !links.awaiting.isEmpty { recorder.withdrawInterests(in: links.awaiting, from: id) }
        machine.withLock { $0.willFinish(key, addedDependencies: added, at: now) }
    }

    /// Records when and how the procedure finished, and hands its record to the recorder.
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        let now = time.traceNow()
        let key = ObjectIdentifier(procedure)
        let thread = SystemThreadID.current()
        let inPlace = ThreadExecuteMark.isLast(key)
        let described = TraceRecord.describe(errors)
        let cancelled = procedure.isCancelled
        let action = machine.withLock {
            $0.didFinish(key, at: now, errors: described, cancelled: cancelled, thread: thread, inPlace: inPlace)
        }
        switch action {
        case .none:
            break
        case .record(let record, let withdrawing):
            if !withdrawing.isEmpty { recorder.withdrawInterests(in: withdrawing, from: record.id) }
            recorder.finished(record, procedure: key)
        }
    }

    // MARK: - For the recorder

    /// Records the queue's name when the procedure was traced before it was enqueued.
    func queueIsKnown(_ name: String?) {
        guard name != nil else { return }
        machine.withLock { $0.queueIsKnown(name) }
    }

    /// The procedure's record so far, if it is traced and has not finished.
    func unfinishedRecord(at time: UInt64) -> TraceRecord? {
        machine.withLock { $0.unfinishedRecord(at: time) }
    }
}

// PERF(W13): attaching an observer asks whether it selects its events; for a type that did not conform, that
// failed cast cost about 1,500 instructions per traced procedure. Naming the events also skips did-add.
extension TraceObserver: EventSelectingObserver {
    private static let events: ObserverEventKinds = [
        .didAttach, .willExecute, .didExecute, .didCancel, .willAdd, .willFinish, .didFinish,
    ]

    /// Every event but did-add.
    package var observedEvents: ObserverEventKinds { Self.events }
}
