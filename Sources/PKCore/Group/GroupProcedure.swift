import Foundation

/// A procedure made of other operations, its children, which run on a private queue; the group finishes after
/// every child has finished, with all of their errors.
///
/// ```swift
/// let group = GroupProcedure(operations: download, resize, upload)
/// group.addDidFinishBlockObserver { group, errors in print("done: \(errors.count) error(s)") }
/// queue.add(procedure: group)
/// ```
///
/// Children are the operations given at init, those added with ``addChild(_:before:)`` / `addChildren(_:before:)`
/// until the group starts finishing, and the operations children produce. For each, in the group's event context,
/// ``groupWillAdd(child:)`` runs, then the group's WillAddOperation observers, then the child is taken, then the
/// DidAddOperation observers run, as in ProcedureKit:
/// - children given at init go through these steps when the group executes, inside its `execute()` (so that a
///   subclass's `execute()` finds them on the private queue after `super.execute()`), and observers added after
///   init see them;
/// - children added later go through them at once, even before the group runs; until it executes, such a child
///   waits in the group (it is not on the private queue, and not `isEnqueued`, until then).
///
/// A child that cannot be taken (a procedure already on another queue, or a finished plain operation) is not run:
/// the group records ``ProcedureKitError/Context/childNotAdded(_:)`` naming it and finishes with that error.
///
/// ``children`` lists the children not finished yet: a finished child is released at once (a group of 100,000
/// children stays small), and its errors stay in the group's ``Procedure/errors``. Watch a group's DidAddOperation
/// observers to see every child it ran.
///
/// Errors: each child's errors go through ``transformChildErrorBlock`` and then
/// ``child(_:willFinishWithErrors:)``, both serialized with the group's events; the default collects them, and the
/// group finishes with everything collected. A cancelled group collects no child errors.
///
/// A group finishes by itself once every child has finished; calling `finish()` on it logs a warning and does
/// nothing.
///
/// Cancellation: cancelling the group cancels every child (procedures with
/// ``ProcedureKitError/Context/parentCancelledWithError``); a group cancelled before it starts still executes, so that its
/// children can finish, and ends cancelled. Subclasses overriding `execute()` must call `super.execute()`.
open class GroupProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: mutable group state is in `groupState`, guarded by its PKMutex; `queue` and `coordinator`
    // are thread-safe themselves.

    struct GroupState {
        enum Phase {
            /// Not executed yet: children are held in `initial`.
            case collecting
            /// Executing: children are taken as they are added.
            case running
            /// Every child finished; the group is finishing and takes no more children.
            case finishing
        }

        var phase = Phase.collecting
        /// Children given at init (or added from inside the group's own events) before it executed: they go through
        /// the add steps when it executes.
        var initial: [Operation] = []
        /// Children added before the group executed whose add steps already ran (counted in `outstanding`): they
        /// go onto the private queue when it executes. Not before: a queued child holds the group as its producer,
        /// and the queue holds itself while it has work, so a group that never ran would never be released.
        var taken: [Operation] = []
        /// Children being taken (counted in `outstanding`), not yet on the private queue.
        var adding: [ObjectIdentifier: Operation] = [:]
        /// Children being taken or on the private queue, not finished yet.
        var outstanding = 0
        var childErrors: [any Error] = []
        var transform: (@Sendable (Procedure, inout [any Error]) -> Void)?
        var isSuspended = false
        /// Child procedures that finished: a progress roll-up made late counts them as done.
        var finishedChildProcedures = 0

        /// Counts `children` as being taken.
        mutating func reserve(_ children: [Operation]) {
            outstanding += children.count
            for child in children { adding[ObjectIdentifier(child)] = child }
        }
    }

    let groupState = PKMutex(GroupState())
    /// The private queue the children run on; suspended until the group executes.
    let queue: ProcedureQueue
    private let coordinator: GroupCoordinator

    /// Creates a group of `operations`, whose children run on `dispatchQueue` when one is given (otherwise on a
    /// global queue).
    public init(dispatchQueue: DispatchQueue? = nil, operations: [Operation]) {
        queue = ProcedureQueue(underlyingQueue: dispatchQueue)
        queue.isSuspended = true
        coordinator = GroupCoordinator()
        super.init(disableAutomaticFinishing: true)
        coordinator.group = self
        queue.delegate = coordinator
        queue.owningGroup = self
        queue.name = "\(procedureName).children"
        groupState.withLock { $0.initial = operations }
    }

    /// Creates a group of `operations`, whose children run on `dispatchQueue` when one is given.
    public convenience init(dispatchQueue: DispatchQueue? = nil, operations: Operation...) {
        self.init(dispatchQueue: dispatchQueue, operations: operations)
    }

    // MARK: - Children

    /// The children that have not finished yet: those waiting for the group to execute, those being added, and
    /// those on the private queue.
    public final var children: [Operation] {
        let held = groupState.withLock { $0.initial + $0.taken + $0.adding.values }
        return held + queue.operations
    }

    /// Adds a child. Allowed until the group starts finishing; later additions are refused with a warning.
    ///
    /// The add steps (``groupWillAdd(child:)``, the WillAddOperation and DidAddOperation observers) run at once,
    /// even before the group executes; a child added before then waits in the group until it executes. A child
    /// added to a cancelled group is cancelled. If `pendingEvent` is given (for example another procedure's pending
    /// execute), that event is held until the child has been added.
    public final func addChild(_ child: Operation, before pendingEvent: PendingEvent? = nil) {
        addChildren([child], before: pendingEvent)
    }

    /// Adds children. See ``addChild(_:before:)``.
    public final func addChildren(_ children: [Operation], before pendingEvent: PendingEvent? = nil) {
        adopt(children, producedBy: self, before: pendingEvent)
    }

    /// Adds children. See ``addChild(_:before:)``.
    public final func addChildren(_ children: Operation..., before pendingEvent: PendingEvent? = nil) {
        addChildren(children, before: pendingEvent)
    }

    /// Takes `children` on behalf of `producer` (the group itself, or a child that produced them).
    func adopt(_ children: [Operation], producedBy producer: Procedure, before pendingEvent: PendingEvent?) {
        enum Outcome { case refused, held, takingBeforeExecute, taking }
        // From inside the group's own events before it executes (a subclass's execute() before super.execute(), a
        // WillExecute observer) the children are held, and execute() takes them. Otherwise they are taken now, as
        // ProcedureKit does even before the group runs. Read before the lock: a thread-local.
        let insideOwnEvents = DrainingProcedures.isDraining(self)
        let outcome = groupState.withLock { state -> Outcome in
            switch state.phase {
            case .finishing:
                return .refused
            case .collecting where insideOwnEvents:
                state.initial.append(contentsOf: children)
                return .held
            case .collecting:
                state.reserve(children)
                return .takingBeforeExecute
            case .running:
                state.reserve(children)
                return .taking
            }
        }
        switch outcome {
        case .refused:
            log.warning("\(procedureName) is finishing; \(children.count) child(ren) not added")
        case .held:
            if isCancelled { cancelChildren(children) }
        case .takingBeforeExecute, .taking:
            // A running group cancels a child as it goes onto the queue; one not executed yet holds it until then.
            if outcome == .takingBeforeExecute, isCancelled { cancelChildren(children) }
            let target = ProducedOperationTarget.children(producedBy: producer)
            for child in children { submit(.produce(child, pendingEvent, target)) }
        }
        withExtendedLifetime(pendingEvent) {}
    }

    /// Called in the group's event context before a child's WillAddOperation observers, once per child. The
    /// default does nothing.
    open func groupWillAdd(child: Operation) {}

    override func willAddChild(_ child: Operation) {
        groupWillAdd(child: child)
    }

    override func addChildNow(_ child: Operation, producedBy producer: Procedure?) {
        if let procedure = child as? Procedure, let node = existingProgressNode, countsTowardProgress(procedure) {
            node.adopt(procedure.progressNode())
        }
        // Runs in the group's event context, as execute() does, so the phase cannot change to running under it.
        let held = groupState.withLock { state -> Bool in
            guard state.phase == .collecting else { return false }
            state.adding[ObjectIdentifier(child)] = nil
            state.taken.append(child)
            return true
        }
        guard !held else { return }
        enqueueChild(child, producedBy: producer ?? self)
    }

    /// Puts a child whose add steps have run (and which is counted in `outstanding`) on the private queue.
    private func enqueueChild(_ child: Operation, producedBy producer: Procedure) {
        let added = queue.add(operation: child, producedBy: producer)
        let error = added ? nil : ProcedureKitError(context: .childNotAdded(Self.name(of: child)))
        let cancelled = isCancelled
        groupState.withLock { state in
            state.adding[ObjectIdentifier(child)] = nil
            guard let error else { return }
            state.outstanding -= 1
            if !cancelled { state.childErrors.append(error) }
        }
        if let error {
            log.warning("\(error); \(procedureName) finishes with this error")
            finishIfDone()
        } else if cancelled {
            // Cancelled while the child was being taken: the cancel may have missed it, so cancel it here too.
            cancelChildren([child])
        }
    }

    private static func name(of operation: Operation) -> String {
        (operation as? Procedure)?.procedureName ?? operation.name ?? String(describing: type(of: operation))
    }

    // MARK: - Settings forwarded to the children's queue

    /// How many children may run at once; no limit by default.
    public final var maxConcurrentOperationCount: Int {
        get { queue.maxConcurrentOperationCount }
        set { queue.maxConcurrentOperationCount = newValue }
    }

    /// While `true`, no further child starts. Children never start before the group executes.
    public final var isSuspended: Bool {
        get { groupState.withLock { $0.isSuspended } }
        set {
            let started = groupState.withLock { state -> Bool in
                state.isSuspended = newValue
                return state.phase != .collecting
            }
            if started || newValue { queue.isSuspended = newValue }
        }
    }

    /// The quality of service of the children's queue.
    open override var qualityOfService: QualityOfService {
        get { queue.qualityOfService }
        set { queue.qualityOfService = newValue }
    }

    // MARK: - Errors

    /// Changes a child's errors before they are collected. Called serialized with the group's events, in the
    /// child's finishing phase, and not once the group is cancelled. The child keeps its own errors.
    public final var transformChildErrorBlock: (@Sendable (Procedure, inout [any Error]) -> Void)? {
        get { groupState.withLock { $0.transform } }
        set {
            let replaced = groupState.withLock { replaceValue(&$0.transform, with: newValue) }
            withExtendedLifetime(replaced) {}  // released outside the lock: it may capture user objects
        }
    }

    /// Called, serialized with the group's events, when a child procedure finishes with `errors` (after
    /// ``transformChildErrorBlock``). The default collects them for the group's own finish; an override that does
    /// not call `super` drops them.
    open func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        guard !errors.isEmpty, !isCancelled else { return }
        groupState.withLock { $0.childErrors.append(contentsOf: errors) }
    }

    // MARK: - Lifecycle

    /// Takes the children added so far and starts them. Subclasses that override it must call `super.execute()`;
    /// when it returns, the children given at init are on the private queue (unless a WillAddOperation observer
    /// still holds its pending event), so the override may use them, for example with `produce(operation:)`.
    open override func execute() {
        let (initial, taken, suspended) = groupState.withLock { state -> ([Operation], [Operation], Bool) in
            guard state.phase == .collecting else { return ([], [], state.isSuspended) }
            state.phase = .running
            let initial = replaceValue(&state.initial, with: [])
            let taken = replaceValue(&state.taken, with: [])
            state.reserve(initial)
            return (initial, taken, state.isSuspended)
        }
        if !suspended { queue.isSuspended = false }
        // Added together, the children held until now are checked for dependency cycles once all are on the queue.
        queue.beginBatch()
        // Children added before the group executed: their add steps ran then; now they go on the queue.
        for child in taken { enqueueChild(child, producedBy: self) }
        // The children given at init go through the add steps here, inline, as in ProcedureKit: execute() runs in
        // the group's event context. Called from anywhere else (a subclass calling it off its events), they are
        // queued behind the current event instead. No will phase is being delivered inside execute(), and each
        // add's phase ends (back to idle) before its processProduce returns (WillPhaseMachine), so one check of the
        // phase covers every child and the nested phases cannot overlap.
        let target = ProducedOperationTarget.children(producedBy: self)
        let inline = DrainingProcedures.isDraining(self) && storage.withLock { $0.willPhase.state == .idle }
        for child in initial {
            if inline {
                processProduce(child, before: nil, to: target)
            } else {
                submit(.produce(child, nil, target))
            }
        }
        queue.endBatch()
        finishIfDone()
    }

    override func cancelAcceptedOnCancellingThread(withErrors errors: [any Error]) {
        let held = groupState.withLock { $0.initial + $0.taken + $0.adding.values }
        cancelChildren(held + queue.operations, errors: errors)
    }

    /// Cancels `children` because the group was cancelled (with `errors`, or with the group's errors). Nested
    /// groups cancel their own children in turn, through ``CascadeTrampoline`` so that no depth of nesting
    /// exhausts the stack.
    private func cancelChildren(_ children: [Operation], errors: [any Error]? = nil) {
        let error = ProcedureKitError.parent(cancelledWithErrors: errors ?? self.errors)
        CascadeTrampoline.run { Procedure.cancelTogether(children, withErrors: [error], becomeReady: true) }
    }

    // MARK: - Coordination (called by the coordinator, the children's queue delegate)

    func childWillFinish(_ child: Procedure, withErrors errors: [any Error]) {
        let transform = transformChildErrorBlock
        // PERF(W5): a plain group does nothing for a child that finishes cleanly and has no transform: skip the
        // serialization (it is the expensive part when many children finish at once).
        if errors.isEmpty && transform == nil && childHookIsTheDefault { return }
        synchronize {
            var errors = errors
            if let transform, !self.isCancelled { transform(child, &errors) }
            self.child(child, willFinishWithErrors: errors)
        }
    }

    /// `true` when ``child(_:willFinishWithErrors:)`` is certainly the default: for a plain `GroupProcedure`. A
    /// subclass may override the hook (Swift cannot tell whether it did), so a subclass always gets the call.
    private var childHookIsTheDefault: Bool { type(of: self) == GroupProcedure.self }

    /// A group finishes by itself, once its children have: a `finish` from anywhere else is refused.
    override func acceptsFinish() -> Bool {
        groupState.withLock { $0.phase == .finishing }
    }

    func childDidFinish(isProcedure: Bool) {
        groupState.withLock {
            $0.outstanding -= 1
            if isProcedure { $0.finishedChildProcedures += 1 }
        }
        finishIfDone()
    }

    // MARK: - Progress

    override var progressMode: ProgressNodeState.Mode { .sum }

    /// Whether `child` counts toward the group's progress: every child procedure; a repeat's attempts only.
    func countsTowardProgress(_ child: Procedure) -> Bool { true }

    /// The children whose progress rolls up into the group's: those running or waiting now, and a count of those
    /// that finished before, as done. (A child finishing at this very moment may be counted twice, or not at all,
    /// until the group finishes, when its progress is complete either way.)
    override func progressChildren() -> (finished: Int, children: [Procedure]) {
        let current = children
        let finished = groupState.withLock { $0.finishedChildProcedures }
        return (finished, current.compactMap { $0 as? Procedure }.filter { countsTowardProgress($0) })
    }

    private func finishIfDone() {
        let errors = groupState.withLock { state -> [any Error]? in
            guard state.phase == .running, state.outstanding == 0 else { return nil }
            state.phase = .finishing
            return state.childErrors
        }
        guard let errors else { return }
        // The last child often finishes on this thread, inside its own parent's finishing, and so on up a nest of
        // groups: the trampoline bounds that recursion.
        CascadeTrampoline.run { self.finish(withErrors: errors) }
    }

    deinit {
        // Children held by a group that never ran may be groups holding children in turn: release the nest
        // iteratively, so that dropping one deep structure never recurses once per level.
        var held = takeHeldChildren()
        while var child = held.popLast() {
            guard isKnownUniquelyReferenced(&child), let nested = child as? GroupProcedure else { continue }
            held.append(contentsOf: nested.takeHeldChildren())
        }
    }

    /// The children held for a group that has not executed, moved out (to be released after the lock).
    private func takeHeldChildren() -> [Operation] {
        groupState.withLock { replaceValue(&$0.initial, with: []) + replaceValue(&$0.taken, with: []) }
    }
}

/// The children's queue delegate: tells the group about children being added and finishing.
final class GroupCoordinator: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked Sendable: `group` is set once, in the group's init, before the queue can call back.
    weak var group: GroupProcedure?

    func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        group?.childWillFinish(procedure, withErrors: errors)
    }

    func procedureQueue(
        _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        group?.childDidFinish(isProcedure: true)
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinishOperation operation: Operation) {
        group?.childDidFinish(isProcedure: false)
    }
}
