import Foundation

/// Watches the progress of a procedure, a group or a queue: read it, be told of changes, iterate them, or hand a
/// `Foundation.Progress` to code that expects one.
///
/// ```swift
/// let monitor = ProgressMonitor(group)
/// monitor.addHandler { progress in print(progress) }   // 40% (2/5) resizing photo 3
/// queue.add(procedure: group)
/// for await progress in monitor.updates() { bar.show(progress.fractionCompleted) }
/// ```
///
/// What is rolled up:
/// - A procedure's progress is what it reported (``Procedure/reportProgress(completed:of:message:)``), complete
///   once it finished (succeeded, failed or cancelled).
/// - A ``GroupProcedure``'s (and a ``BatchProcedure``'s) is the sum of its child procedures' weights: a child that
///   reports units weighs its total, any other 1; children added later are included as they are added, so the
///   total may grow, and the fraction may go back when it does. Children that finished before the group was first
///   watched count as done, each weighing 1.
/// - A ``RepeatProcedure``'s and a ``RetryProcedure``'s is its current attempt's (the number of attempts is not
///   known in advance); complete once the repeat finished.
/// - A ``ProcedureQueue``'s is the sum over the procedures added since it was last idle (everything it counted had
///   finished): a queue starts counting afresh with the next procedure added after that. Procedures that finished
///   before the queue was first watched are not counted. A queue's progress never reads as finished.
///
/// A procedure counts toward one roll-up only: its group's, or, for a procedure on a watched queue, its queue's.
///
/// Cost: nothing until something reports, reads or watches progress. Watching a queue gives each procedure added
/// to it a progress node (the benchmark's W1 row with a monitor attached measures it).
///
/// Handlers run on the thread that reported the change (a child's report updates its group's roll-up on the
/// child's thread), with no lock held, one value at a time per monitored object, latest last; changes made while a
/// handler runs are coalesced. Keep handlers short (`TerminalProgressBar` in PKObservers throttles its drawing).
/// A handler added to a finished procedure is called once, with the finished value.
///
/// The monitor stops every handler it added, and every `Foundation.Progress` it made stops following, when it is
/// released or ``stop()`` is called. Thread-safe.
public final class ProgressMonitor: Sendable {
    private let node: ProgressNode
    /// Cancels what is watched: the procedure, or the queue's operations.
    private let cancelWatched: @Sendable () -> Void
    /// The handlers this monitor added, to remove when it stops, each with what ends it (an `updates()` stream's
    /// finish); `nil` once stopped.
    private let subscriptions = PKMutex<[(id: UInt64, end: (@Sendable () -> Void)?)]?>([])

    /// Watches `procedure` (a group rolls up its children).
    public init(_ procedure: Procedure) {
        node = procedure.progressNode()
        cancelWatched = { [weak procedure] in procedure?.cancel() }
    }

    /// Watches everything added to `queue` (see the roll-up rules above).
    public init(_ queue: ProcedureQueue) {
        node = queue.progressNode()
        cancelWatched = { [weak queue] in queue?.cancelAllOperations() }
    }

    deinit {
        stop()
    }

    /// The progress now.
    public var progress: ProcedureProgress { node.value }

    /// Calls `handler` with the current progress, then with every change, until the monitor stops (for a
    /// procedure, the last call has ``ProcedureProgress/isFinished`` set).
    public func addHandler(_ handler: @escaping @Sendable (ProcedureProgress) -> Void) {
        keep(node.subscribe(handler), end: nil)
    }

    /// Keeps a handler's id (and what ends it) to remove when the monitor stops; if it has stopped already, removes
    /// and ends it now. Returns whether it was kept.
    @discardableResult
    private func keep(_ id: UInt64, end: (@Sendable () -> Void)?) -> Bool {
        let kept = subscriptions.withLock { kept -> Bool in
            guard kept != nil else { return false }
            kept?.append((id, end))
            return true
        }
        if !kept {
            node.unsubscribe(id)
            end?()
        }
        return kept
    }

    /// The progress now, then every change (coalesced: a slow consumer sees the latest), ending after the
    /// finished value for a procedure; for a queue, when the monitor stops or the iterating task is cancelled.
    public func updates() -> AsyncStream<ProcedureProgress> {
        let (stream, continuation) = AsyncStream.makeStream(
            of: ProcedureProgress.self, bufferingPolicy: .bufferingNewest(1))
        guard subscriptions.withLock({ $0 != nil }) else {
            continuation.finish()  // stopped already
            return stream
        }
        // The stream may end before the handler below is set (the first value is a finished one): the handler is
        // set first, and the registration tells which of the two lets go of the subscription.
        let registration = StreamRegistration()
        continuation.onTermination = { [weak self, weak node] _ in
            guard let id = registration.end() else { return }
            node?.unsubscribe(id)
            self?.forget(id)
        }
        let id = node.subscribe { progress in
            continuation.yield(progress)
            if progress.isFinished { continuation.finish() }
        }
        guard keep(id, end: { continuation.finish() }) else { return stream }
        if !registration.register(id) {
            // Ended already: the stream's end found no subscription to let go of.
            node.unsubscribe(id)
            forget(id)
        }
        return stream
    }

    /// Lets go of a subscription whose stream ended: a long-lived monitor serving a stream per client must not
    /// keep one entry per stream it ever served.
    private func forget(_ id: UInt64) {
        let removed = subscriptions.withLock { kept -> (id: UInt64, end: (@Sendable () -> Void)?)? in
            guard let index = kept?.firstIndex(where: { $0.id == id }) else { return nil }
            return kept?.remove(at: index)
        }
        withExtendedLifetime(removed) {}  // released here, after the lock
    }

    /// How many handlers and streams the monitor holds (for tests).
    var subscriptionCount: Int { subscriptions.withLock { $0?.count ?? 0 } }

    /// A `Foundation.Progress` that follows this progress for as long as the monitor lives, for code that expects
    /// one. Its unit counts are this progress's units when it has them, otherwise thousandths (messages are not carried:
    /// `Progress`'s descriptions are read-only here). Cancelling it
    /// cancels what is watched (the procedure, or every operation on the queue).
    public func makeFoundationProgress() -> Progress {
        let foundation = Progress(totalUnitCount: 1000)
        foundation.isCancellable = true
        let cancel = cancelWatched
        foundation.cancellationHandler = { cancel() }
        let box = FoundationProgressBox(foundation)
        addHandler { progress in box.update(with: progress) }
        return foundation
    }

    /// Stops the handlers this monitor added, ends the streams of its ``updates()``, and stops every
    /// `Foundation.Progress` it made from following. Handlers added later are not kept, and streams made later
    /// end at once.
    public func stop() {
        let kept = subscriptions.withLock { kept -> [(id: UInt64, end: (@Sendable () -> Void)?)] in
            defer { kept = nil }
            return kept ?? []
        }
        for subscription in kept {
            node.unsubscribe(subscription.id)
            subscription.end?()
        }
    }
}

/// Whether an ``ProgressMonitor/updates()`` stream ended before or after its subscription was registered: whichever
/// comes second lets go of the subscription.
private final class StreamRegistration: Sendable {
    private enum State {
        case pending
        case registered(UInt64)
        case ended
    }

    private let state = PKMutex(State.pending)

    /// Registers `id`; `false` when the stream ended already.
    func register(_ id: UInt64) -> Bool {
        state.withLock { state in
            guard case .pending = state else { return false }
            state = .registered(id)
            return true
        }
    }

    /// The stream ended: returns the registered id to let go of, or `nil` when none is registered yet.
    func end() -> UInt64? {
        state.withLock { state in
            defer { state = .ended }
            guard case .registered(let id) = state else { return nil }
            return id
        }
    }
}

/// A `Foundation.Progress` updated from a monitor's handler, which runs one value at a time.
private final class FoundationProgressBox: @unchecked Sendable {
    // @unchecked Sendable: `progress` is only changed from the node's deliverer, and the `isDelivering` flag kept
    // under `ProgressNode.state` (its PKMutex) admits one deliverer at a time; Foundation's `Progress` guards its
    // own fields with its own lock.
    let progress: Progress

    init(_ progress: Progress) {
        self.progress = progress
    }

    func update(with value: ProcedureProgress) {
        if value.hasUnits {
            progress.totalUnitCount = value.totalUnitCount
            progress.completedUnitCount = value.completedUnitCount
        } else {
            progress.totalUnitCount = 1000
            progress.completedUnitCount = Int64((value.fractionCompleted * 1000).rounded(.down))
        }
    }
}
