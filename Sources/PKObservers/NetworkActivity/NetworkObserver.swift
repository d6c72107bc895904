import PKCore

/// Reports a procedure's network activity to a ``NetworkActivityController``: ``NetworkActivityController/start()``
/// as it starts executing, ``NetworkActivityController/stop()`` as it finishes.
///
/// Only a procedure that started is stopped: one cancelled before it starts finishes without ever executing, and
/// (unlike ProcedureKit's observer, which then stopped without having started) leaves the count alone. One observer
/// value may be attached to many procedures; each is counted once.
///
/// Thread-safe: a value type whose record of started procedures lives in a shared, locked table, which holds no
/// reference to them.
public struct NetworkObserver: ProcedureObserver {

    /// The controller this observer reports to.
    public let controller: NetworkActivityController

    private let started: PerProcedureState<Int>

    /// Creates an observer reporting to `controller`.
    public init(controller: NetworkActivityController) {
        self.controller = controller
        self.started = PerProcedureState()
    }

    /// Counts the procedure in.
    public func will(execute procedure: Procedure, pendingExecute: PendingExecuteEvent) {
        started.update(for: procedure, initial: 0) { $0 += 1 }
        controller.start()
    }

    /// Counts the procedure out, if it was counted in.
    public func did(finish procedure: Procedure, withErrors errors: [any Error]) {
        for _ in 0..<(started.remove(for: procedure) ?? 0) { controller.stop() }
    }
}
