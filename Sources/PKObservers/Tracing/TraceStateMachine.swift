/// The lifecycle of one ``TraceObserver``: attached to a procedure and registered with the recorder, then
/// waiting, executing, finishing, and finished with a ``TraceRecord``.
///
/// No locks, clocks or callbacks: the observer feeds it events with the times and thread ids it read, and carries
/// out the returned action outside its lock. Every event names its procedure; events of any other procedure (an
/// observer attached to two procedures) are ignored, as is everything once the observer has declined (a second
/// procedure, or a procedure the recorder traces already). Repeated events (an observer attached twice to one
/// procedure receives everything twice) keep the first time.
///
/// The machine lives in its observer's lock and is never copied: the registered states share one
/// ``TracedProcedure``, which the events update in place.
struct TraceStateMachine {

    /// How the observer came to be attached, decided before it is.
    struct Setup: Sendable, Equatable {
        /// The queue's name, when attached by a queue-level recorder.
        var queue: String?
        var attachedOnEnqueue: Bool
        /// The procedure that added this one, when attached by that procedure's observer.
        var link: TraceRecord.Link?
    }

    /// What the recorder knew of the procedure's dependency links when it was registered.
    struct Links: Sendable, Equatable {
        /// The dependencies it had then (their addresses), to tell later additions apart.
        var seen: [ObjectIdentifier] = []
        /// The traced dependencies among them.
        var resolved: [UInt64] = []
        /// The dependencies not traced then: this procedure is waiting to hear if they are.
        var awaiting: [ObjectIdentifier] = []
        /// The traced procedures that were waiting for this one.
        var dependents: [UInt64] = []
    }

    /// The procedure being traced: what the recorder registered, and what has happened since.
    ///
    /// A class, so that the states carrying it carry one reference and every event updates it where it is.
    // PERF(W13): with the registration and the progress as enum payloads (values), every transition copied the
    // strings and arrays inside (retained and released through outlined value witnesses): several thousand
    // instructions per traced procedure. One reference costs one retain per transition.
    final class TracedProcedure: Equatable {
        let procedure: ObjectIdentifier
        let id: UInt64
        let name: String
        let category: String
        let setup: Setup
        let attachedAt: UInt64
        let links: Links
        /// The queue's name: the setup's, or one learnt later (the procedure was traced before it was enqueued).
        var queue: String?
        var startedAt: UInt64?
        var thread: UInt64?
        var cancellation: TraceRecord.Cancellation?
        /// The traced dependencies: those resolved at registration, then those gained later.
        var dependencies: [UInt64]
        var finishingAt: UInt64?

        init(
            procedure: ObjectIdentifier, id: UInt64, name: String, category: String, setup: Setup, at time: UInt64,
            links: Links
        ) {
            self.procedure = procedure
            self.id = id
            self.name = name
            self.category = category
            self.setup = setup
            attachedAt = time
            self.links = links
            queue = setup.queue
            dependencies = links.resolved
        }

        /// Its record, ended at `endedAt`.
        func record(
            endedAt: UInt64, status: TraceRecord.Status, errors: [String] = [], finishThread: UInt64? = nil,
            finishedInPlace: Bool = false
        ) -> TraceRecord {
            TraceRecord(
                id: id, name: name, category: category, queue: queue, attachedOnEnqueue: setup.attachedOnEnqueue,
                link: setup.link, attachedAt: attachedAt, startedAt: startedAt, endedAt: endedAt, thread: thread,
                cancellation: cancellation, status: status, errors: errors, dependencies: dependencies,
                dependents: links.dependents, finishingAt: finishingAt, finishThread: finishThread,
                finishedInPlace: finishedInPlace)
        }

        /// One procedure, by identity: the states carrying it are equal when they carry the same.
        static func == (lhs: TracedProcedure, rhs: TracedProcedure) -> Bool { lhs === rhs }
    }

    enum State: Equatable {
        case unattached(Setup)
        /// `didAttach` is running: the observer is being registered with the recorder.
        case attaching(ObjectIdentifier, Setup)
        case waiting(TracedProcedure)
        case executing(TracedProcedure)
        /// Its WillFinish event ran: the dependency links are settled.
        case finishing(TracedProcedure)
        case finished
        /// Not tracing anything: attached to a second procedure, or to one the recorder traces already.
        case declined

        /// The traced procedure, while it is registered and has not finished.
        var traced: TracedProcedure? {
            switch self {
            case .waiting(let traced), .executing(let traced), .finishing(let traced): traced
            case .unattached, .attaching, .finished, .declined: nil
            }
        }
    }

    enum AttachAction: Equatable {
        /// Register the procedure with the recorder, then call ``registered(_:id:name:category:at:links:)`` or
        /// ``registrationRefused(_:)``.
        case register(Setup)
        /// The observer traces another procedure already: this attachment is not traced.
        case declineSecondAttachment
    }

    enum FinishAction: Equatable {
        case none
        /// Hand the record to the recorder, and withdraw the interests in these dependencies (left when the
        /// observer missed the WillFinish event, having been attached during it).
        case record(TraceRecord, withdrawing: [ObjectIdentifier])
    }

    private(set) var state: State

    init(setup: Setup) {
        state = .unattached(setup)
    }

    /// The traced procedure, if it is `procedure` and has not finished.
    private func traced(_ procedure: ObjectIdentifier) -> TracedProcedure? {
        guard let traced = state.traced, traced.procedure == procedure else { return nil }
        return traced
    }

    /// Traps on an event that cannot come before the attachment was registered (PKCore sends `didAttach` first, and
    /// registration completes inside it).
    private func requireAttached(_ event: String) {
        switch state {
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: \(event) before didAttach (state \(state))")
        case .waiting, .executing, .finishing, .finished, .declined:
            break
        }
    }

    // MARK: - Attaching

    mutating func attachBegan(_ procedure: ObjectIdentifier) -> AttachAction {
        switch state {
        case .unattached(let setup):
            state = .attaching(procedure, setup)
            return .register(setup)
        case .attaching, .waiting, .executing, .finishing, .finished, .declined:
            return .declineSecondAttachment
        }
    }

    mutating func registered(
        _ procedure: ObjectIdentifier, id: UInt64, name: String, category: String, at time: UInt64, links: Links
    ) {
        switch state {
        case .attaching(let attaching, let setup) where attaching == procedure:
            state = .waiting(
                TracedProcedure(
                    procedure: procedure, id: id, name: name, category: category, setup: setup, at: time,
                    links: links))
        case .unattached, .attaching, .waiting, .executing, .finishing, .finished, .declined:
            preconditionFailure("TraceObserver: registered without attaching (state \(state))")
        }
    }

    mutating func registrationRefused(_ procedure: ObjectIdentifier) {
        switch state {
        case .attaching(let attaching, _) where attaching == procedure:
            state = .declined
        case .unattached, .attaching, .waiting, .executing, .finishing, .finished, .declined:
            preconditionFailure("TraceObserver: registration refused without attaching (state \(state))")
        }
    }

    /// Records the queue's name if none is known (the procedure was traced before it was enqueued).
    func queueIsKnown(_ name: String?) {
        guard let name, let traced = state.traced, traced.queue == nil else { return }
        traced.queue = name
    }

    // MARK: - Lifecycle

    mutating func willExecute(_ procedure: ObjectIdentifier, at time: UInt64) {
        requireAttached("willExecute")
        switch state {
        case .waiting(let traced) where traced.procedure == procedure:
            traced.startedAt = time
            state = .executing(traced)
        case .unattached, .attaching, .waiting, .executing, .finishing, .finished, .declined:
            break  // a repeat, or another procedure's event
        }
    }

    mutating func didExecute(_ procedure: ObjectIdentifier, thread: UInt64) {
        requireAttached("didExecute")
        switch state {
        case .waiting(let traced) where traced.procedure == procedure:
            // Attached during the WillExecute phase: execute() ran, its start was missed.
            traced.thread = thread
            state = .executing(traced)
        case .executing(let traced) where traced.procedure == procedure,
            .finishing(let traced) where traced.procedure == procedure:
            if traced.thread == nil { traced.thread = thread }
        case .unattached, .attaching, .waiting, .executing, .finishing, .finished, .declined:
            break
        }
    }

    func didCancel(_ procedure: ObjectIdentifier, at time: UInt64, errors: [String]) {
        requireAttached("didCancel")
        guard let traced = traced(procedure), traced.cancellation == nil else { return }
        traced.cancellation = TraceRecord.Cancellation(at: time, errors: errors)
    }

    /// The link a child added now gets, or `nil` when this observer traces nothing (or another procedure).
    func linkForChild(of procedure: ObjectIdentifier, kind: TraceRecord.LinkKind, at time: UInt64, thread: UInt64)
        -> TraceRecord.Link?
    {
        requireAttached("willAdd")
        guard let traced = traced(procedure) else { return nil }
        return TraceRecord.Link(kind: kind, parent: traced.id, at: time, thread: thread)
    }

    /// What the WillFinish event needs to settle the dependency links: the procedure's number and its links at
    /// registration; `nil` when it is not traced here, or its links were settled already.
    func linksToSettle(_ procedure: ObjectIdentifier) -> (id: UInt64, links: Links)? {
        switch state {
        case .waiting(let traced) where traced.procedure == procedure,
            .executing(let traced) where traced.procedure == procedure:
            (traced.id, traced.links)
        case .unattached, .attaching, .waiting, .executing, .finishing, .finished, .declined:
            nil
        }
    }

    /// The procedure is finishing (at `time`); `added` are the traced dependencies it gained after it was
    /// registered.
    mutating func willFinish(_ procedure: ObjectIdentifier, addedDependencies added: [UInt64], at time: UInt64) {
        requireAttached("willFinish")
        switch state {
        case .waiting(let traced) where traced.procedure == procedure,
            .executing(let traced) where traced.procedure == procedure:
            traced.dependencies += added
            traced.finishingAt = time
            state = .finishing(traced)
        case .unattached, .attaching, .waiting, .executing, .finishing, .finished, .declined:
            break
        }
    }

    /// The procedure finished at `time`, on `thread`; `inPlace` when that is its `execute()` thread and the thread
    /// started no other procedure meanwhile.
    mutating func didFinish(
        _ procedure: ObjectIdentifier, at time: UInt64, errors: [String], cancelled: Bool, thread: UInt64? = nil,
        inPlace: Bool = false
    ) -> FinishAction {
        requireAttached("didFinish")
        guard let traced = traced(procedure) else { return .none }
        // Settled in the WillFinish event, unless this observer was attached during it.
        let withdrawing: [ObjectIdentifier]
        switch state {
        case .finishing: withdrawing = []
        case .unattached, .attaching, .waiting, .executing, .finished, .declined: withdrawing = traced.links.awaiting
        }
        let status: TraceRecord.Status = cancelled ? .cancelled : (errors.isEmpty ? .finished : .failed)
        let record = traced.record(
            endedAt: time, status: status, errors: errors, finishThread: thread,
            finishedInPlace: inPlace && thread != nil && traced.thread == thread)
        state = .finished
        return .record(record, withdrawing: withdrawing)
    }

    /// The record of a procedure still running at `time`, for a trace written before it finished; `nil` once it
    /// has finished or when nothing is traced.
    func unfinishedRecord(at time: UInt64) -> TraceRecord? {
        guard let traced = state.traced else { return nil }
        return traced.record(endedAt: max(time, traced.attachedAt), status: .unfinished)
    }
}
