import Foundation

extension Procedure {

    /// Adds `operation` to the queue this procedure is on, after the WillAdd observers.
    ///
    /// If `before` is given, that pending event (for example this procedure's pending finish) is held until the
    /// operation has been added. The operation is added even if the procedure finishes meanwhile. Throws
    /// ``ProcedureKitError/Context/noQueue`` when the procedure is not on a queue when called (not yet enqueued,
    /// or finished).
    public final func produce(operation: Operation, before: PendingEvent? = nil) throws {
        guard let queue = storage.withLock({ $0.queue }) else { throw ProcedureKitError.noQueue() }
        submit(.produce(operation, before, .queue(queue)))
    }

    final func processProduce(_ operation: Operation, before: PendingEvent?, to target: ProducedOperationTarget) {
        if case .children = target { willAddChild(operation) }
        let observers = storage.withLock { $0.observers }
        if observers.wants(.willAdd) {
            runWillPhase(.addOperation, continuation: .addProduced(operation, before, target)) { token in
                observers.send(.willAdd(operation, token), to: self)
            }
        } else {
            processAddProduced(operation, before: before, to: target)
        }
    }

    /// Adds the produced operation: to the queue the procedure was on when `produce` was called (even if the
    /// procedure has finished meanwhile), or to a group's children. A group's private queue hands operations its
    /// children produce to the group, which adds them in its own event context.
    final func processAddProduced(
        _ operation: Operation, before: PendingEvent?, to target: ProducedOperationTarget
    ) {
        switch target {
        case .queue(let queue):
            if let group = queue.owningGroup {
                group.adopt([operation], producedBy: self, before: before)
            } else {
                queue.add(operation: operation, producedBy: self)
            }
        case .children(let producer):
            addChildNow(operation, producedBy: producer)
        }
        withExtendedLifetime(before) {}
        let observers = storage.withLock { $0.observers }
        if observers.wants(.didAdd) { observers.send(.didAdd(operation), to: self) }
    }
}
