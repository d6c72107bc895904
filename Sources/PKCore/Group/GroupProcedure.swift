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
/// until the group starts finishing, and the operations children produce. They do not start before the group
/// executes. A finished child is released at once; ``children`` lists the unfinished ones.
///
/// Errors: each child's errors go through ``transformChildErrorBlock`` and then
/// ``child(_:willFinishWithErrors:)``, whose default collects them; the group finishes with everything collected.
/// A cancelled group collects no child errors.
///
/// Cancellation: cancelling the group cancels every child (procedures with
/// ``ProcedureKitError/Context/parentCancelled``); a group cancelled before it starts still executes, so that its
/// children can finish, and ends cancelled. Subclasses overriding `execute()` must call `super.execute()`.
open class GroupProcedure: Procedure, @unchecked Sendable {
    // @unchecked Sendable: mutable group state is in `group`, guarded by its PKMutex; `queue` and `coordinator`
    // are thread-safe themselves.

    struct GroupState {
        var outstanding = 0
        var hasStarted = false
        var isFinishing = false
        var childErrors: [any Error] = []
        var transform: (@Sendable (Procedure, inout [any Error]) -> Void)?
        var isSuspended = false
    }

    let group = PKMutex(GroupState())
    /// The private queue the children run on; suspended until the group executes.
    let queue: ProcedureQueue
    private let coordinator: GroupCoordinator

    /// Creates a group of `operations`.
    public init(operations: [Operation]) {
        queue = ProcedureQueue()
        queue.isSuspended = true
        coordinator = GroupCoordinator()
        super.init(disableAutomaticFinishing: true)
        coordinator.group = self
        queue.delegate = coordinator
        queue.name = "\(procedureName).children"
        for operation in operations { queue.add(operation: operation, producedBy: self) }
    }

    /// Creates a group of `operations`.
    public convenience init(operations: Operation...) {
        self.init(operations: operations)
    }

    // MARK: - Children

    /// The children that have not finished yet.
    public final var children: [Operation] { queue.operations }

    /// Adds a child. Allowed until the group starts finishing; later additions are refused with a warning.
    ///
    /// If `pendingEvent` is given (for example a child's pending execute), that event is held until the child
    /// has been added.
    public final func addChild(_ child: Operation, before pendingEvent: PendingEvent? = nil) {
        addChildren([child], before: pendingEvent)
    }

    /// Adds children. See ``addChild(_:before:)``.
    public final func addChildren(_ children: [Operation], before pendingEvent: PendingEvent? = nil) {
        let refused = group.withLock { $0.isFinishing }
        guard !refused else {
            log.warning("\(procedureName) is finishing; \(children.count) child(ren) not added")
            return
        }
        for child in children { queue.add(operation: child, producedBy: self) }
        withExtendedLifetime(pendingEvent) {}
    }

    /// Adds children. See ``addChild(_:before:)``.
    public final func addChildren(_ children: Operation..., before pendingEvent: PendingEvent? = nil) {
        addChildren(children, before: pendingEvent)
    }

    // MARK: - Settings forwarded to the children's queue

    /// How many children may run at once; no limit by default.
    public final var maxConcurrentOperationCount: Int {
        get { queue.maxConcurrentOperationCount }
        set { queue.maxConcurrentOperationCount = newValue }
    }

    /// While `true`, no further child starts. Children never start before the group executes.
    public final var isSuspended: Bool {
        get { group.withLock { $0.isSuspended } }
        set {
            let started = group.withLock { state -> Bool in
                state.isSuspended = newValue
                return state.hasStarted
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

    /// Changes a child's errors before they are collected. Called in the child's finishing phase.
    public final var transformChildErrorBlock: (@Sendable (Procedure, inout [any Error]) -> Void)? {
        get { group.withLock { $0.transform } }
        set { group.withLock { $0.transform = newValue } }
    }

    /// Called, serialized with the group's events, when a child procedure finishes with `errors` (after
    /// ``transformChildErrorBlock``). The default collects them for the group's own finish; an override that does
    /// not call `super` drops them.
    open func child(_ child: Procedure, willFinishWithErrors errors: [any Error]) {
        guard !errors.isEmpty, !isCancelled else { return }
        group.withLock { $0.childErrors.append(contentsOf: errors) }
    }

    // MARK: - Lifecycle

    /// Starts the children. Subclasses that override it must call `super.execute()`.
    open override func execute() {
        let (finishNow, suspended) = group.withLock { state -> (Bool, Bool) in
            state.hasStarted = true
            return (state.outstanding == 0 && !state.isFinishing, state.isSuspended)
        }
        if !suspended { queue.isSuspended = false }
        if finishNow { finishIfDone() }
    }

    override func procedureWasCancelled(withErrors errors: [any Error]) {
        let error = ProcedureKitError.parent(cancelledWithErrors: errors)
        for child in queue.operations {
            if let procedure = child as? Procedure {
                procedure.cancel(with: error)
            } else {
                child.cancel()
            }
        }
    }

    // MARK: - Coordination (called by the coordinator, the children's queue delegate)

    func childWillBeAdded(_ child: Operation) {
        group.withLock { $0.outstanding += 1 }
        if isCancelled {
            if let procedure = child as? Procedure {
                procedure.cancel(with: ProcedureKitError.parent(cancelledWithErrors: errors))
            } else {
                child.cancel()
            }
        }
    }

    func childWillFinish(_ child: Procedure, withErrors errors: [any Error]) {
        // A plain group does nothing for a child that finishes cleanly: skip the serialization (it is the
        // expensive part when many children finish at once). Subclasses may override the hook, so they always
        // get the call.
        if errors.isEmpty && type(of: self) == GroupProcedure.self { return }
        var errors = errors
        if let transform = transformChildErrorBlock { transform(child, &errors) }
        let transformed = errors
        synchronize { self.child(child, willFinishWithErrors: transformed) }
    }

    func childDidFinish() {
        group.withLock { $0.outstanding -= 1 }
        finishIfDone()
    }

    private func finishIfDone() {
        let errors = group.withLock { state -> [any Error]? in
            guard state.hasStarted, state.outstanding == 0, !state.isFinishing else { return nil }
            state.isFinishing = true
            return state.childErrors
        }
        guard let errors else { return }
        finish(withErrors: errors)
    }
}

/// The children's queue delegate: tells the group about children being added and finishing.
final class GroupCoordinator: ProcedureQueueDelegate, @unchecked Sendable {
    // @unchecked Sendable: `group` is set once, in the group's init, before the queue can call back.
    weak var group: GroupProcedure?

    func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?) {
        group?.childWillBeAdded(procedure)
    }

    func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation, context: (any Sendable)?) {
        group?.childWillBeAdded(operation)
    }

    func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        group?.childWillFinish(procedure, withErrors: errors)
    }

    func procedureQueue(
        _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        group?.childDidFinish()
    }

    func procedureQueue(_ queue: ProcedureQueue, didFinishOperation operation: Operation) {
        group?.childDidFinish()
    }
}
