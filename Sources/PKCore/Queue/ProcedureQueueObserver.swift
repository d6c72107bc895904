import Foundation

/// Watches a ``ProcedureQueue``: operations and procedures being added and finishing.
///
/// Add observers with ``ProcedureQueue/addObserver(_:)``; the queue holds them weakly. Every method has an empty
/// default. Callbacks may arrive on any thread and concurrently; for one operation, will-add comes before
/// did-add, and will-finish before did-finish. `context` is the procedure that produced the operation, if any.
public protocol ProcedureQueueObserver: AnyObject, Sendable {
    /// A plain operation is about to be added.
    func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation, context: (any Sendable)?)
    /// A plain operation was added.
    func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation, context: (any Sendable)?)
    /// A plain operation finished.
    func procedureQueue(_ queue: ProcedureQueue, didFinishOperation operation: Operation)
    /// A procedure is about to be added (it is already marked as enqueued).
    func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?)
    /// A procedure was added.
    func procedureQueue(_ queue: ProcedureQueue, didAddProcedure procedure: Procedure, context: (any Sendable)?)
    /// A procedure is about to finish, with these errors (called in its WillFinish phase).
    func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error])
    /// A procedure finished, with these errors.
    func procedureQueue(
        _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error])
}

extension ProcedureQueueObserver {
    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation, context: (any Sendable)?)
    {}
    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation, context: (any Sendable)?)
    {}
    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, didFinishOperation operation: Operation) {}
    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?)
    {}
    /// Does nothing.
    public func procedureQueue(_ queue: ProcedureQueue, didAddProcedure procedure: Procedure, context: (any Sendable)?)
    {}
    /// Does nothing.
    public func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {}
    /// Does nothing.
    public func procedureQueue(
        _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {}
}

/// The single, weakly held delegate of a ``ProcedureQueue``. It receives the same callbacks as a
/// ``ProcedureQueueObserver``, before the observers.
public protocol ProcedureQueueDelegate: ProcedureQueueObserver {}

/// The ``ProcedureQueueObserver`` callbacks, as a set: those a framework observer implements (see
/// ``EventSelectingQueueObserver``), and those a queue has listeners for.
package struct QueueEventKinds: OptionSet, Sendable {
    package let rawValue: UInt8
    package init(rawValue: UInt8) { self.rawValue = rawValue }

    package static let willAddOperation = QueueEventKinds(rawValue: 1 << 0)
    package static let didAddOperation = QueueEventKinds(rawValue: 1 << 1)
    package static let didFinishOperation = QueueEventKinds(rawValue: 1 << 2)
    package static let willAddProcedure = QueueEventKinds(rawValue: 1 << 3)
    package static let didAddProcedure = QueueEventKinds(rawValue: 1 << 4)
    package static let willFinishProcedure = QueueEventKinds(rawValue: 1 << 5)
    package static let didFinishProcedure = QueueEventKinds(rawValue: 1 << 6)
    /// Every callback.
    package static let all = QueueEventKinds(rawValue: 0x7F)
}

/// A framework queue observer that names the callbacks it implements, so a queue whose observers all name theirs
/// skips the others (no delegate or observer lookup, and a finish settled in one critical section). Package-only:
/// a user's ``ProcedureQueueObserver`` may implement any callback, so it gets them all.
///
/// PERF(W13): a queue-level TraceRecorder implements only will-add-procedure, yet was told of four events per
/// procedure.
package protocol EventSelectingQueueObserver: ProcedureQueueObserver {
    /// The callbacks this observer implements, read once, when it is added.
    var observedQueueEvents: QueueEventKinds { get }
}
