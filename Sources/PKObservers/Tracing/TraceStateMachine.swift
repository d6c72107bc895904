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

    private(set) var state: State

    init(setup: Setup) {
        state = .unattached(setup)
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
            let attachment = Attachment(
                procedure: procedure, id: id, name: name, category: category, setup: setup, attachedAt: time,
                links: links)
            state = .waiting(attachment, Progress(queue: setup.queue, dependencies: links.resolved))
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
    mutating func queueIsKnown(_ name: String?) {
        guard let name else { return }
        switch state {
        case .waiting(let attachment, var progress):
            if progress.queue == nil { progress.queue = name }
            state = .waiting(attachment, progress)
        case .executing(let attachment, var progress):
            if progress.queue == nil { progress.queue = name }
            state = .executing(attachment, progress)
        case .finishing(let attachment, var progress):
            if progress.queue == nil { progress.queue = name }
            state = .finishing(attachment, progress)
        case .unattached, .attaching, .finished, .declined:
            break
        }
    }

    // MARK: - Lifecycle

    mutating func willExecute(_ procedure: ObjectIdentifier, at time: UInt64) {
        switch state {
        case .waiting(let attachment, var progress) where attachment.procedure == procedure:
            progress.startedAt = time
            state = .executing(attachment, progress)
        case .executing, .finishing, .finished, .declined, .waiting:
            break  // a repeat, or another procedure's event
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: willExecute before didAttach (state \(state))")
        }
    }

    mutating func didExecute(_ procedure: ObjectIdentifier, thread: UInt64) {
        switch state {
        case .waiting(let attachment, var progress) where attachment.procedure == procedure:
            // Attached during the WillExecute phase: execute() ran, its start was missed.
            progress.thread = thread
            state = .executing(attachment, progress)
        case .executing(let attachment, var progress) where attachment.procedure == procedure:
            if progress.thread == nil { progress.thread = thread }
            state = .executing(attachment, progress)
        case .finishing(let attachment, var progress) where attachment.procedure == procedure:
            if progress.thread == nil { progress.thread = thread }
            state = .finishing(attachment, progress)
        case .waiting, .executing, .finishing, .finished, .declined:
            break
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: didExecute before didAttach (state \(state))")
        }
    }

    mutating func didCancel(_ procedure: ObjectIdentifier, at time: UInt64, errors: [String]) {
        let cancellation = TraceRecord.Cancellation(at: time, errors: errors)
        switch state {
        case .waiting(let attachment, var progress) where attachment.procedure == procedure:
            if progress.cancellation == nil { progress.cancellation = cancellation }
            state = .waiting(attachment, progress)
        case .executing(let attachment, var progress) where attachment.procedure == procedure:
            if progress.cancellation == nil { progress.cancellation = cancellation }
            state = .executing(attachment, progress)
        case .finishing(let attachment, var progress) where attachment.procedure == procedure:
            if progress.cancellation == nil { progress.cancellation = cancellation }
            state = .finishing(attachment, progress)
        case .waiting, .executing, .finishing, .finished, .declined:
            break
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: didCancel before didAttach (state \(state))")
        }
    }

    /// The link a child added now gets, or `nil` when this observer traces nothing (or another procedure).
    func linkForChild(of procedure: ObjectIdentifier, kind: TraceRecord.LinkKind, at time: UInt64)
        -> TraceRecord.Link?
    {
        switch state {
        case .waiting(let attachment, _), .executing(let attachment, _), .finishing(let attachment, _):
            guard attachment.procedure == procedure else { return nil }
            return TraceRecord.Link(kind: kind, parent: attachment.id, at: time)
        case .finished, .declined:
            return nil
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: willAdd before didAttach (state \(state))")
        }
    }

    /// What the WillFinish event needs to settle the dependency links: the procedure's number and its links at
    /// registration; `nil` when it is not traced here, or its links were settled already.
    func linksToSettle(_ procedure: ObjectIdentifier) -> (id: UInt64, links: Links)? {
        switch state {
        case .waiting(let attachment, let progress), .executing(let attachment, let progress),
            .finishing(let attachment, let progress):
            guard attachment.procedure == procedure, !progress.dependenciesSettled else { return nil }
            return (attachment.id, attachment.links)
        case .unattached, .attaching, .finished, .declined:
            return nil
        }
    }

    /// The procedure is finishing; `added` are the traced dependencies it gained after it was registered.
    mutating func willFinish(_ procedure: ObjectIdentifier, addedDependencies added: [UInt64]) {
        switch state {
        case .waiting(let attachment, var progress) where attachment.procedure == procedure,
            .executing(let attachment, var progress) where attachment.procedure == procedure:
            if !progress.dependenciesSettled { progress.dependencies += added }
            progress.dependenciesSettled = true
            state = .finishing(attachment, progress)
        case .waiting, .executing, .finishing, .finished, .declined:
            break
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: willFinish before didAttach (state \(state))")
        }
    }

    mutating func didFinish(
        _ procedure: ObjectIdentifier, at time: UInt64, errors: [String], cancelled: Bool
    ) -> FinishAction {
        switch state {
        case .waiting(let attachment, let progress) where attachment.procedure == procedure,
            .executing(let attachment, let progress) where attachment.procedure == procedure,
            .finishing(let attachment, let progress) where attachment.procedure == procedure:
            let status: TraceRecord.Status = cancelled ? .cancelled : (errors.isEmpty ? .finished : .failed)
            state = .finished
            let record = Self.record(attachment, progress, endedAt: time, status: status, errors: errors)
            return .record(record, withdrawing: progress.dependenciesSettled ? [] : attachment.links.awaiting)
        case .waiting, .executing, .finishing, .finished, .declined:
            return .none
        case .unattached, .attaching:
            preconditionFailure("TraceObserver: didFinish before didAttach (state \(state))")
        }
    }

    /// The record of a procedure still running at `time`, for a trace written before it finished; `nil` once it
    /// has finished or when nothing is traced.
    func unfinishedRecord(at time: UInt64) -> TraceRecord? {
        switch state {
        case .waiting(let attachment, let progress), .executing(let attachment, let progress),
            .finishing(let attachment, let progress):
            return Self.record(attachment, progress, endedAt: max(time, attachment.attachedAt), status: .unfinished)
        case .unattached, .attaching, .finished, .declined:
            return nil
        }
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
