import Foundation

/// Watches one procedure's lifecycle events.
///
/// Every method has an empty default, so implement only the events you care about. Observers are held strongly
/// by the procedure until it finishes, then released.
///
/// Guarantees: one procedure's callbacks never run concurrently with each other or with its `execute()`;
/// "will" callbacks run before the event and the event waits for them (and for every reference to the pending
/// event token); "did" callbacks run after it; within one event, observers run in the order they were added.
/// Callbacks run on whichever thread is running the procedure's events, or inside ``eventQueue`` when set;
/// WillExecute callbacks, like `execute()`, only on a thread of the procedure's queue.
/// Different procedures' observers may run in parallel.
public protocol ProcedureObserver: Sendable {

    /// The type of procedure this observer watches; the callbacks receive it already typed.
    associatedtype Procedure: PKCore.Procedure = PKCore.Procedure

    /// Called once, when the observer is attached.
    func didAttach(to procedure: Procedure)

    /// Called before `execute()`; `execute()` waits for every reference to `pendingExecute` to go away.
    /// Not called when the procedure is cancelled before it starts.
    func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent)

    /// Called after `execute()` has returned. The procedure may already be finishing.
    func did(execute procedure: Procedure)

    /// Called after the procedure is cancelled, with the errors passed to `cancel`.
    func did(cancel procedure: Procedure, withErrors errors: [any Error])

    /// Called before the procedure adds `newOperation` to its queue.
    func procedure(_ procedure: Procedure, willAdd newOperation: Operation)

    /// Called before the procedure adds `newOperation` to its queue; the add waits for `pendingAddOperation`.
    /// The default calls ``procedure(_:willAdd:)``.
    func procedure(
        _ procedure: Procedure, willAdd newOperation: Operation, pendingAddOperation: PendingAddOperationEvent)

    /// Called after the procedure added `newOperation` to its queue.
    func procedure(_ procedure: Procedure, didAdd newOperation: Operation)

    /// Called before the procedure moves to finished, with all of its errors; finishing waits for every
    /// reference to `pendingFinish` to go away. `isFinished` is still `false`.
    func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent)

    /// Called after the procedure has finished, with all of its errors. `isFinished` is `true`.
    func did(finish procedure: Procedure, withErrors errors: [any Error])

    /// A synchronizer to run the callbacks in, or `nil` (the default) for the procedure's own event context.
    var eventQueue: (any ObserverSynchronizer)? { get }
}

extension ProcedureObserver {
    /// Does nothing.
    public func didAttach(to procedure: Procedure) {}
    /// Does nothing.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {}
    /// Does nothing.
    public func did(execute procedure: Procedure) {}
    /// Does nothing.
    public func did(cancel procedure: Procedure, withErrors errors: [any Error]) {}
    /// Does nothing.
    public func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {}
    /// Calls ``procedure(_:willAdd:)``.
    public func procedure(
        _ procedure: Procedure, willAdd newOperation: Operation, pendingAddOperation: PendingAddOperationEvent
    ) {
        self.procedure(procedure, willAdd: newOperation)
    }
    /// Does nothing.
    public func procedure(_ procedure: Procedure, didAdd newOperation: Operation) {}
    /// Does nothing.
    public func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {}
    /// Does nothing.
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) {}
    /// `nil`: callbacks run in the procedure's own event context.
    public var eventQueue: (any ObserverSynchronizer)? { nil }
}
