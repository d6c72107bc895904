import Foundation
import Synchronization

/// Runs procedures (and plain operations) when their dependencies have finished.
///
/// The queue keeps its own scheduler: each operation counts its unfinished dependencies and becomes ready when
/// the count reaches zero, so scheduling costs O(1) per dependency edge. Ready work waits in per-priority FIFO
/// lists and runs on Dispatch, at most ``maxConcurrentOperationCount`` at a time. A procedure occupies a slot from
/// start until it finishes.
///
/// Without an ``underlyingQueue``, the queues of a process share their threads: as many run work at once as there
/// are cores, all but one on Dispatch's global pool and the last on a thread of its own, so `execute()` calls that
/// block their thread (waiting for blocks they sent to a global queue, say) never take every pool thread; when all
/// of them are blocked, more threads are added, one a millisecond. A blocking `execute()` still holds one of those
/// few threads while it waits: prefer finishing later, from a callback (``AsyncProcedure``, `finish()` from a
/// completion handler), to waiting, and never wait synchronously for such procedures from a Swift task or a
/// global-queue block, which holds a pool thread too (`try await queue.run(procedure)` or
/// `await procedure.waitUntilFinished()` instead).
///
/// A queue holds every unfinished operation strongly, and a procedure holds its queue until it finishes, so a
/// queue you drop keeps running the work it has. Procedures caught in a dependency cycle are found when the queue
/// would otherwise stall, and are cancelled with ``ProcedureKitError/Context/dependencyCycle(_:)``.
///
/// Thread-safe: every member may be used from any thread.
public final class ProcedureQueue: @unchecked Sendable {
    // @unchecked Sendable: all mutable state is in `state`, guarded by its Mutex; `subject` and the atomics are
    // thread-safe themselves.
    //
    // Lifetime: while any operation is outstanding the queue holds one reference to itself (see QueueKeepAlive).

    /// Everything mutable about the queue (internal for its extensions in other files, e.g. the cycle check).
    // PERF(W1, W2): an adaptive mutex (see ContendedMutex): every worker takes it several times per procedure.
    let state: ContendedMutex<ProcedureQueueState>
    private let subject = Subject<any ProcedureQueueObserver>()
    /// The callbacks someone listens to (``QueueEventKinds`` bits), and ``delegateWasSet``: grows as a delegate or
    /// observers are added, never shrinks. A notification nobody listens to costs one atomic load.
    // PERF(W1): no delegate or observer lock on the per-procedure path of a queue nobody listens to.
    // PERF(W13): nor for the callbacks no observer implements (see EventSelectingQueueObserver).
    private let listenedEvents = Atomic<UInt8>(0)
    /// The bit of ``listenedEvents`` set once a delegate has been set: until then notifications skip its lock.
    private static let delegateWasSet: UInt8 = 1 << 7
    /// The weak delegate, behind a lock of its own: every notification reads it, and the queue's own lock is the
    /// most contended one there is. PERF(W13)
    private let delegateBox = ContendedMutex(WeakDelegate())
    /// The name, behind a lock of its own for the same reason: the trace recorder reads it for every procedure
    /// added. PERF(W13)
    private let nameBox: PKMutex<String?>
    /// The queue's progress roll-up and the observer feeding it, made when someone first watches the queue's
    /// progress (see ``ProgressMonitor``).
    let progressFeed = PKMutex<QueueProgressFeed?>(nil)

    /// Holds the delegate weakly.
    private struct WeakDelegate {
        weak var delegate: (any ProcedureQueueDelegate)?
    }
    /// Mirrors `underlyingQueue != nil`, so the execute path checks it without the lock.
    // PERF(W1): every execute() asks whether it must hop; without an underlying queue that costs no lock.
    let hasUnderlyingQueue = Atomic<Bool>(false)
    /// Whether this is a group's private queue (``owningGroup`` was set): public adds then go through the group.
    private let isGroupQueue = Atomic<Bool>(false)
    static let underlyingKey = DispatchSpecificKey<UnderlyingQueueToken>()
    /// The block every worker loop of this queue is dispatched with (see ``WorkerLoop/spawn(for:on:)``). Made
    /// once: a closure literal would cost a context and a block copy on every dispatch.
    // PERF(W1, W10): no allocation per dispatched loop.
    let loopBlock: @convention(block) @Sendable () -> Void

    /// Creates a queue.
    public init(
        name: String? = nil, qualityOfService: QualityOfService = .default,
        maxConcurrentOperationCount: Int = OperationQueue.defaultMaxConcurrentOperationCount,
        underlyingQueue: DispatchQueue? = nil
    ) {
        var initial = ProcedureQueueState()
        nameBox = PKMutex(name)
        initial.qualityOfService = qualityOfService
        initial.maxConcurrentOperationCount = maxConcurrentOperationCount
        state = ContendedMutex(initial)
        let entry = WorkerLoop.Entry()
        loopBlock = { WorkerLoop.runDispatched(entry) }
        entry.queue.store(Unmanaged.passUnretained(self), ordering: .releasing)
        self.underlyingQueue = underlyingQueue
    }

    /// A shared serial queue whose work runs on the main dispatch queue (which must be serviced, for example by
    /// `dispatchMain()` or a run loop).
    public static let main = ProcedureQueue(
        name: "ProcedureQueue.main", maxConcurrentOperationCount: 1, underlyingQueue: .main)

    // MARK: - Settings

    /// A name for debugging.
    public var name: String? {
        get { nameBox.withLock { $0 } }
        set { nameBox.withLock { $0 = newValue } }
    }

    /// How many operations may run at once; `OperationQueue.defaultMaxConcurrentOperationCount` (-1) means no
    /// limit. A procedure counts as running until it finishes, so `1` makes the queue fully serial.
    public var maxConcurrentOperationCount: Int {
        get { state.withLock { $0.maxConcurrentOperationCount } }
        set {
            state.withLock { $0.maxConcurrentOperationCount = newValue }
            launchReadyWork()
        }
    }

    /// While `true`, no new work starts; work already started continues.
    ///
    /// A procedure a worker had taken but not started yet (it was waiting for its mutually exclusive categories)
    /// gives a granted category back and returns to the ready list, so that procedures on other queues are not held
    /// up; it asks again when it is next started. Condition evaluation waits for the queue to be resumed.
    public var isSuspended: Bool {
        get { state.withLock { $0.isSuspended } }
        set {
            if newValue {
                switch state.withLock({ $0.suspend() }) {
                case .none: break
                case .giveBackLocks(let procedures): for procedure in procedures { procedure.giveBackLocks() }
                }
            } else {
                let action = state.withLock { $0.resume() }
                if let target = action.spawnLoopOn { WorkerLoop.spawn(for: self, on: target) }
                if action.scheduleStallCheck { scheduleStallCheck() }
            }
        }
    }

    /// Called for a procedure that holds a slot and may start now: its categories were granted, or its request
    /// was withdrawn because it was cancelled. A worker loop starts it; a suspended queue instead takes the slot
    /// back and returns it to the ready list (giving a granted category back).
    func startAfterLocks(_ procedure: Procedure) {
        let loopWillPick = WorkerLoop.willPick(for: self)
        let granted = GrantedProcedure(procedure: procedure, priority: procedure.queuePriority)
        switch state.withLock({ $0.locksGranted(granted, loopWillPick: loopWillPick) }) {
        case .none: break
        case .spawnLoop(let target): WorkerLoop.spawn(for: self, on: target)
        case .giveBackLocks: procedure.giveBackLocks()
        }
    }

    /// The quality of service work runs at (when ``underlyingQueue`` is `nil`).
    public var qualityOfService: QualityOfService {
        get { state.withLock { $0.qualityOfService } }
        set { state.withLock { $0.qualityOfService = newValue } }
    }

    /// A dispatch queue to run work on, instead of the threads the queues of the process share; `execute()` then
    /// runs on it.
    public var underlyingQueue: DispatchQueue? {
        get { state.withLock { $0.underlyingQueue } }
        set {
            let token = newValue.map { _ in UnderlyingQueueToken() }
            if let newValue, let token { newValue.setSpecific(key: Self.underlyingKey, value: token) }
            state.withLock {
                $0.underlyingQueue = newValue
                $0.underlyingToken = token
            }
            hasUnderlyingQueue.store(newValue != nil, ordering: .relaxed)
        }
    }

    /// The delegate, held weakly. It is told of adds and finishes before the observers.
    ///
    /// A group's private queue (reached through ``current``) keeps its group's delegate: setting another logs a
    /// warning and does nothing, since the group would then never finish.
    public weak var delegate: (any ProcedureQueueDelegate)? {
        get { delegateBox.withLock { $0.delegate } }
        set {
            if isGroupQueue.load(ordering: .acquiring) {
                Log.write(
                    .warning, "\(name ?? "a group's queue") is a group's private queue: its delegate stays the group's")
                return
            }
            delegateBox.withLock { $0.delegate = newValue }
            if newValue != nil {
                listenedEvents.bitwiseOr(QueueEventKinds.all.rawValue | Self.delegateWasSet, ordering: .releasing)
            }
        }
    }

    /// The number of unfinished operations on the queue.
    public var operationCount: Int { state.withLock { $0.members.count } }

    /// The unfinished operations on the queue, in no particular order.
    public var operations: [Operation] { state.withLock { $0.members.map(\.operation) } }

    // MARK: - Observers

    /// Adds an observer, held weakly.
    public func addObserver(_ observer: any ProcedureQueueObserver) {
        subject.add(observer: observer)
        let kinds = (observer as? any EventSelectingQueueObserver)?.observedQueueEvents ?? .all
        listenedEvents.bitwiseOr(kinds.rawValue, ordering: .releasing)
    }

    /// Removes an observer now.
    public func removeObserver(_ observer: any ProcedureQueueObserver) {
        subject.remove(observer: observer)
    }

    /// Stops notifying an observer; it is recycled at the next notification.
    public func disposeObserver(_ observer: any ProcedureQueueObserver) {
        subject.dispose(observer: observer)
    }

    // MARK: - Adding

    /// Adds a procedure. It starts when its dependencies have finished.
    ///
    /// Adding a procedure that is already on a queue (this one or another) logs a warning and does nothing: a
    /// procedure runs once.
    ///
    /// On a group's private queue (reached through ``current``), the procedure becomes a child of the group, as
    /// with `addChild(_:)`, so that the group waits for it.
    public func add(procedure: Procedure) {
        if isGroupQueue.load(ordering: .acquiring), handToOwningGroup([procedure]) { return }
        add(procedure: procedure, context: nil)
    }

    /// Adds procedures, in order. Dependency cycles among them are looked for only once all of them are added.
    public func add(procedures: Procedure...) {
        add(procedures: procedures)
    }

    /// Adds procedures, in order. Dependency cycles among them are looked for only once all of them are added.
    public func add<S: Sequence>(procedures: S) where S.Element: Procedure {
        if isGroupQueue.load(ordering: .acquiring) {
            let procedures = Array(procedures)  // a sequence may be single-pass
            if !handToOwningGroup(procedures) { addBatch(procedures) }
        } else {
            addBatch(procedures)
        }
    }

    /// Adds `procedures` to this queue itself, looking for dependency cycles once all of them are added.
    private func addBatch<S: Sequence>(_ procedures: S) where S.Element: Procedure {
        beginBatch()
        for procedure in procedures { add(procedure: procedure, context: nil) }
        endBatch()
    }

    /// Begins adding several procedures that may close dependency cycles among themselves: until the matching
    /// ``endBatch()``, a procedure that arrives with dependencies is held waiting, and cycles are looked for once
    /// all of them are here. A group adds its initial children this way.
    func beginBatch() {
        state.withLock { $0.batchAdds += 1 }
    }

    /// Ends a batch: when no other batch is under way, cancels every dependency cycle through the procedures held,
    /// then lets them become ready.
    func endBatch() {
        let held = state.withLock { state -> [Procedure.Arrival] in
            state.batchAdds -= 1
            return state.batchAdds == 0 ? replaceValue(&state.heldArrivals, with: []) : []
        }
        let mayCloseCycles = held.filter(\.hadEarlyDependents).map(\.procedure)
        if !mayCloseCycles.isEmpty { cancelCycles(through: mayCloseCycles, limit: .max) }
        for arrival in held { _ = arrival.releaseToken() }
        checkForStallSoon()
    }

    /// Adds any operation: procedures go through ``add(procedure:)``; plain operations start when their
    /// dependencies have finished. On a group's private queue, the operation becomes a child of the group.
    public func addOperation(_ operation: Operation) {
        if isGroupQueue.load(ordering: .acquiring), handToOwningGroup([operation]) { return }
        add(operation: operation, producedBy: nil)
    }

    /// Adds a `BlockOperation` running `block`.
    public func addOperation(_ block: @escaping @Sendable () -> Void) {
        addOperation(BlockOperation(block: block))
    }

    /// Adds operations; when `waitUntilFinished` is `true`, blocks until all of them have finished.
    public func addOperations(_ operations: [Operation], waitUntilFinished: Bool) {
        for operation in operations { addOperation(operation) }
        guard waitUntilFinished else { return }
        for operation in operations { operation.waitUntilFinished() }
    }

    /// Adds `operation` on behalf of `producer`; returns `false` (adding nothing, with a warning) when it cannot
    /// be added: a procedure already on a queue, or a plain operation that is executing, finished or depends on
    /// itself.
    @discardableResult
    func add(operation: Operation, producedBy producer: Procedure?) -> Bool {
        if let procedure = operation as? Procedure {
            return add(procedure: procedure, context: producer)
        } else {
            return add(plainOperation: operation, context: producer)
        }
    }

    /// The group whose children run on this queue, if it is a group's private queue. Operations a child produces
    /// onto this queue are handed to the group, which adds them in its own event context.
    var owningGroup: GroupProcedure? {
        get { state.withLock { $0.owningGroup } }
        set {
            state.withLock { $0.owningGroup = newValue }
            isGroupQueue.store(newValue != nil, ordering: .releasing)
        }
    }

    /// On a group's private queue, hands `operations` to the group (its add steps, its count of children) and
    /// returns `true`; `false` once the group is gone. PERF(W1): callers check `isGroupQueue` first, so other queues
    /// pay one atomic load, not the state lock or an array.
    private func handToOwningGroup(_ operations: [Operation]) -> Bool {
        guard let group = owningGroup else { return false }
        group.adopt(operations, producedBy: group, before: nil)
        return true
    }

    /// Whether anyone listens to `kind`.
    func isListened(_ kind: QueueEventKinds) -> Bool {
        listenedEvents.load(ordering: .acquiring) & kind.rawValue != 0
    }

    /// Tells the delegate, then the observers, of a `kind` callback; a single atomic load when nobody listens to it.
    func notify(_ kind: QueueEventKinds, _ body: (any ProcedureQueueObserver) -> Void) {
        let listened = listenedEvents.load(ordering: .acquiring)
        guard listened & kind.rawValue != 0 else { return }
        if listened & Self.delegateWasSet != 0, let delegate = delegateBox.withLock({ $0.delegate }) {
            body(delegate)
        }
        subject.send(body)
    }

    @discardableResult
    private func add(procedure: Procedure, context: Procedure?) -> Bool {
        guard procedure.prepareToEnqueue(on: self, producedBy: context) else { return false }
        notify(.willAddProcedure) { $0.procedureQueue(self, willAddProcedure: procedure, context: context) }
        let member = QueueMember.procedure(procedure)
        if procedure.enqueueIfReadyAtOnce() {
            // No dependencies: membership, readiness and launch in one critical section.
            // PERF(W1): one lock acquisition per add instead of three.
            // `queuePriority` is open (a subclass may override it): read before the lock, never under it.
            let priority = procedure.queuePriority
            let target = state.withLock { state -> WorkerLoop.Target? in
                if state.insert(member) { QueueKeepAlive.takeSelfReference(self) }
                state.ready.append(member, priority: priority)
                return state.reserveLoop()
            }
            if let target { WorkerLoop.spawn(for: self, on: target) }
        } else {
            let inBatch = state.withLock { state -> Bool in
                if state.insert(member) { QueueKeepAlive.takeSelfReference(self) }
                state.waiting += 1
                return state.batchAdds > 0
            }
            let arrival = procedure.arrive()
            // PERF(W3): a second critical section only while a batch is under way. Outside one, the arrival is
            // checked on its own (also right when a batch begins meanwhile).
            let held =
                inBatch
                && state.withLock { state -> Bool in
                    guard state.batchAdds > 0 else { return false }
                    state.heldArrivals.append(arrival)
                    return true
                }
            if !held {
                if arrival.hadEarlyDependents { cancelCycles(through: [procedure]) }
                if arrival.releaseToken() { checkForStallSoon() }
            }
            if arrival.waitsOnNoQueue { watchForStrandedDependencies(of: procedure) }
        }
        notify(.didAddProcedure) { $0.procedureQueue(self, didAddProcedure: procedure, context: context) }
        return true
    }

    private func add(plainOperation operation: Operation, context: Procedure?) -> Bool {
        guard !operation.isFinished, !operation.isExecuting, operation.dependencies.allSatisfy({ $0 !== operation })
        else {
            Log.write(.warning, "\(operation) is executing, finished or depends on itself; not added")
            return false
        }
        let node = OperationNode(operation: operation, queue: self)
        notify(.willAddOperation) { $0.procedureQueue(self, willAddOperation: operation, context: context) }
        state.withLock { state in
            if state.insert(.operation(node)) { QueueKeepAlive.takeSelfReference(self) }
            state.waiting += 1
        }
        node.enqueue()
        notify(.didAddOperation) { $0.procedureQueue(self, didAddOperation: operation, context: context) }
        return true
    }

    // MARK: - Cancelling and waiting

    /// Cancels every unfinished operation on the queue.
    public func cancelAllOperations() {
        for operation in operations { operation.cancel() }
    }

    /// Blocks the calling thread until every operation on the queue has finished (including their DidFinish
    /// observers). Do not call it from work running on this queue.
    public func waitUntilAllOperationsAreFinished() {
        let semaphore = state.withLock { state -> DispatchSemaphore? in
            guard state.outstanding > 0 else { return nil }
            let semaphore = DispatchSemaphore(value: 0)
            state.idleWaiters.append(.semaphore(semaphore))
            return semaphore
        }
        semaphore?.wait()
    }

    /// Suspends until every operation on the queue has finished.
    public func allOperationsFinished() async {
        await withCheckedContinuation { (continuation: CheckedContinuation<Void, Never>) in
            let idle = state.withLock { state -> Bool in
                guard state.outstanding > 0 else { return true }
                state.idleWaiters.append(.continuation(continuation))
                return false
            }
            if idle { continuation.resume() }
        }
    }
}
