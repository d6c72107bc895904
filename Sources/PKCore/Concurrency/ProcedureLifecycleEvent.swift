import Foundation

/// One event in a procedure's life, as delivered by ``Procedure/lifecycleEvents()``.
public enum ProcedureLifecycleEvent: Sendable, CustomStringConvertible {
    /// The stream's observer was attached.
    case didAttach
    /// `execute()` is about to run.
    case willExecute
    /// `execute()` returned.
    case didExecute
    /// The procedure was cancelled with these errors.
    case didCancel([any Error])
    /// The procedure will add an operation to its queue.
    case willAdd(Operation)
    /// The procedure added an operation to its queue.
    case didAdd(Operation)
    /// The procedure is finishing with these errors.
    case willFinish([any Error])
    /// The procedure finished with these errors; the last event.
    case didFinish([any Error])

    /// The event's name, such as `didFinish`.
    public var description: String {
        switch self {
        case .didAttach: "didAttach"
        case .willExecute: "willExecute"
        case .didExecute: "didExecute"
        case .didCancel: "didCancel"
        case .willAdd: "willAdd"
        case .didAdd: "didAdd"
        case .willFinish: "willFinish"
        case .didFinish: "didFinish"
        }
    }
}

/// Feeds a procedure's events into an `AsyncStream`.
private struct StreamObserver: ProcedureObserver {
    let continuation: AsyncStream<ProcedureLifecycleEvent>.Continuation

    func didAttach(to procedure: Procedure) { continuation.yield(.didAttach) }
    func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) { continuation.yield(.willExecute) }
    func did(execute procedure: Procedure) { continuation.yield(.didExecute) }
    func did(cancel procedure: Procedure, withErrors errors: [any Error]) { continuation.yield(.didCancel(errors)) }
    func procedure(_ procedure: Procedure, willAdd newOperation: Operation) {
        continuation.yield(.willAdd(newOperation))
    }
    func procedure(_ procedure: Procedure, didAdd newOperation: Operation) { continuation.yield(.didAdd(newOperation)) }
    func will(finish procedure: Procedure, withErrors errors: [any Error], pendingFinish: PendingFinishEvent) {
        continuation.yield(.willFinish(errors))
    }
    func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        continuation.yield(.didFinish(errors))
        continuation.finish()
    }
}

extension Procedure {
    /// The procedure's events from now on, ending after ``ProcedureLifecycleEvent/didFinish(_:)``.
    ///
    /// Each call attaches a new observer, so take the sequence before enqueueing to see every event. Taken after
    /// the procedure finished, it yields `didAttach` and `didFinish` and ends. Events are buffered without limit.
    /// (A method, not a property, so that subclasses keep the name `events` for themselves.)
    public final func lifecycleEvents() -> AsyncStream<ProcedureLifecycleEvent> {
        let (stream, continuation) = AsyncStream.makeStream(of: ProcedureLifecycleEvent.self)
        addObserver(StreamObserver(continuation: continuation))
        return stream
    }
}
