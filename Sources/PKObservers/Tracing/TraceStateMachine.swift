/// The lifecycle of one ``TraceObserver``: attached to a procedure and registered with the recorder, then
/// waiting, executing, finishing, and finished with a ``TraceRecord``.
///
/// A value type with no locks, clocks or callbacks: the observer feeds it events with the times and thread ids it
/// read, and carries out the returned action outside its lock. Every event names its procedure; events of any
/// other procedure (an observer attached to two procedures) are ignored, as is everything once the observer has
/// declined (a second procedure, or a procedure the recorder traces already). Repeated events (an observer attached
/// twice to one procedure receives everything twice) keep the first time.
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

    /// The traced procedure, as registered; it never changes afterwards.
    ///
    /// A class, so that the states carrying it copy one reference: the strings and arrays inside would otherwise be
    /// retained and released at every transition.
    // PERF(W13): one retain per transition instead of about eight.
    final class Attachment: Sendable, Equatable {
        let procedure: ObjectIdentifier
        let id: UInt64
        let name: String
        let category: String
        let setup: Setup
        let attachedAt: UInt64
        let links: Links

        init(
            procedure: ObjectIdentifier, id: UInt64, name: String, category: String, setup: Setup,
            attachedAt: UInt64, links: Links
        ) {
            self.procedure = procedure
            self.id = id
            self.name = name
            self.category = category
            self.setup = setup
            self.attachedAt = attachedAt
            self.links = links
        }

        static func == (lhs: Attachment, rhs: Attachment) -> Bool {
            lhs === rhs
                || (lhs.procedure == rhs.procedure && lhs.id == rhs.id && lhs.name == rhs.name
                    && lhs.category == rhs.category && lhs.setup == rhs.setup && lhs.attachedAt == rhs.attachedAt
                    && lhs.links == rhs.links)
        }
    }

    /// What happened after the procedure was attached.
    struct Progress: Sendable, Equatable {
        /// The queue's name: the setup's, or one learnt later (the procedure was traced before it was enqueued).
        var queue: String?
        var startedAt: UInt64?
        var thread: UInt64?
        var cancellation: TraceRecord.Cancellation?
        var dependencies: [UInt64] = []
        /// Whether the WillFinish lookup of dependencies was done.
        var dependenciesSettled = false
    }

    enum State: Sendable, Equatable {
        case unattached(Setup)
        /// `didAttach` is running: the observer is being registered with the recorder.
        case attaching(ObjectIdentifier, Setup)
        case waiting(Attachment, Progress)
        case executing(Attachment, Progress)
        case finishing(Attachment, Progress)
        case finished
        /// Not tracing anything: attached to a second procedure, or to one the recorder traces already.
        case declined
    }

    enum AttachAction: Equatable {
        /// Register the procedure with the recorder, then call ``registered(_:id:name:category:at:)`` or
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

    /// The machine's phase; the data of each phase lives in the stored properties below, updated in place.
    ///
    /// PERF(W13): an enum with the attachment and progress as payloads was copied (strings and arrays retained and
    /// released, through outlined value witnesses) at every transition; several thousand instructions per traced
    /// procedure. ``state`` still presents the same states, built on demand (for tests and failure messages).
    private enum Phase: UInt8 {
        case unattached, attaching, waiting, executing, finishing, finished, declined
    }

    private var phase = Phase.unattached
    private let setup: Setup
    /// The procedure being attached (phase `attaching`).
    private var attaching: ObjectIdentifier?
    /// The registered procedure (phases `waiting`, `executing`, `finishing`).
    private var attachment: Attachment?
    private var progress = Progress()

    /// The state, as a value; built on each read.
    var state: State {
        switch phase {
        case .unattached: .unattached(setup)
        case .attaching: .attaching(attaching!, setup)
        case .waiting: .waiting(attachment!, progress)
        case .executing: .executing(attachment!, progress)
        case .finishing: .finishing(attachment!, progress)
        case .finished: .finished
        case .declined: .declined
        }
    }

    init(setup: Setup) {
        self.setup = setup
    }

    /// Whether the machine traces `procedure` and it has not finished.
    private func traces(_ procedure: ObjectIdentifier) -> Bool {
        switch phase {
        case .waiting, .executing, .finishing: attachment?.procedure == procedure
        case .unattached, .attaching, .finished, .declined: false
        }
    }

    // MARK: - Attaching

    mutating func attachBegan(_ procedure: ObjectIdentifier) -> AttachAction {
        guard phase == .unattached else { return .declineSecondAttachment }
        phase = .attaching
        attaching = procedure
        return .register(setup)
    }

    mutating func registered(
        _ procedure: ObjectIdentifier, id: UInt64, name: String, category: String, at time: UInt64, links: Links
    ) {
        guard phase == .attaching, attaching == procedure else {
            preconditionFailure("TraceObserver: registered without attaching (state \(state))")
        }
        attachment = Attachment(
            procedure: procedure, id: id, name: name, category: category, setup: setup, attachedAt: time,
            links: links)
        progress = Progress(queue: setup.queue, dependencies: links.resolved)
        attaching = nil
        phase = .waiting
    }

    mutating func registrationRefused(_ procedure: ObjectIdentifier) {
        guard phase == .attaching, attaching == procedure else {
            preconditionFailure("TraceObserver: registration refused without attaching (state \(state))")
        }
        attaching = nil
        phase = .declined
    }

    /// Records the queue's name if none is known (the procedure was traced before it was enqueued).
    mutating func queueIsKnown(_ name: String?) {
        guard let name else { return }
        switch phase {
        case .waiting, .executing, .finishing:
            if progress.queue == nil { progress.queue = name }
        case .unattached, .attaching, .finished, .declined:
            break
        }
    }

    // MARK: - Lifecycle

    /// Traps on an event that cannot come before the attachment was registered.
    private func requireAttached(_ event: String) {
        switch phase {
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: \(event) before didAttach (state \(state))")
        case .waiting, .executing, .finishing, .finished, .declined:
            break
        }
    }

    mutating func willExecute(_ procedure: ObjectIdentifier, at time: UInt64) {
        requireAttached("willExecute")
        // Anything else is a repeat, or another procedure's event.
        guard phase == .waiting, traces(procedure) else { return }
        progress.startedAt = time
        phase = .executing
    }

    mutating func didExecute(_ procedure: ObjectIdentifier, thread: UInt64) {
        requireAttached("didExecute")
        guard traces(procedure) else { return }
        switch phase {
        case .waiting:
            // Attached during the WillExecute phase: execute() ran, its start was missed.
            progress.thread = thread
            phase = .executing
        case .executing, .finishing:
            if progress.thread == nil { progress.thread = thread }
        case .unattached, .attaching, .finished, .declined:
            break
        }
    }

    mutating func didCancel(_ procedure: ObjectIdentifier, at time: UInt64, errors: [String]) {
        requireAttached("didCancel")
        guard traces(procedure), progress.cancellation == nil else { return }
        progress.cancellation = TraceRecord.Cancellation(at: time, errors: errors)
    }

    /// The link a child added now gets, or `nil` when this observer traces nothing (or another procedure).
    func linkForChild(of procedure: ObjectIdentifier, kind: TraceRecord.LinkKind, at time: UInt64)
        -> TraceRecord.Link?
    {
        requireAttached("willAdd")
        guard traces(procedure), let attachment else { return nil }
        return TraceRecord.Link(kind: kind, parent: attachment.id, at: time)
    }

    /// What the WillFinish event needs to settle the dependency links: the procedure's number and its links at
    /// registration; `nil` when it is not traced here, or its links were settled already.
    func linksToSettle(_ procedure: ObjectIdentifier) -> (id: UInt64, links: Links)? {
        guard traces(procedure), !progress.dependenciesSettled, let attachment else { return nil }
        return (attachment.id, attachment.links)
    }

    /// The procedure is finishing; `added` are the traced dependencies it gained after it was registered.
    mutating func willFinish(_ procedure: ObjectIdentifier, addedDependencies added: [UInt64]) {
        requireAttached("willFinish")
        guard phase == .waiting || phase == .executing, traces(procedure) else { return }
        if !progress.dependenciesSettled { progress.dependencies += added }
        progress.dependenciesSettled = true
        phase = .finishing
    }

    mutating func didFinish(
        _ procedure: ObjectIdentifier, at time: UInt64, errors: [String], cancelled: Bool
    ) -> FinishAction {
        requireAttached("didFinish")
        guard traces(procedure), let attachment else { return .none }
        let status: TraceRecord.Status = cancelled ? .cancelled : (errors.isEmpty ? .finished : .failed)
        let record = Self.record(attachment, progress, endedAt: time, status: status, errors: errors)
        let withdrawing = progress.dependenciesSettled ? [] : attachment.links.awaiting
        phase = .finished
        self.attachment = nil
        progress = Progress()
        return .record(record, withdrawing: withdrawing)
    }

    /// The record of a procedure still running at `time`, for a trace written before it finished; `nil` once it
    /// has finished or when nothing is traced.
    func unfinishedRecord(at time: UInt64) -> TraceRecord? {
        guard let attachment, phase == .waiting || phase == .executing || phase == .finishing else { return nil }
        return Self.record(attachment, progress, endedAt: max(time, attachment.attachedAt), status: .unfinished)
    }

    private static func record(
        _ attachment: Attachment, _ progress: Progress, endedAt: UInt64, status: TraceRecord.Status,
        errors: [String] = []
    ) -> TraceRecord {
        TraceRecord(
            id: attachment.id, name: attachment.name, category: attachment.category, queue: progress.queue,
            attachedOnEnqueue: attachment.setup.attachedOnEnqueue, link: attachment.setup.link,
            attachedAt: attachment.attachedAt, startedAt: progress.startedAt, endedAt: endedAt,
            thread: progress.thread, cancellation: progress.cancellation, status: status, errors: errors,
            dependencies: progress.dependencies, dependents: attachment.links.dependents)
    }
}
