/// The progress of one procedure or queue, shared by everything that reports into it or watches it: a
/// ``ProgressNodeState`` behind a lock, and the effects it returns carried out after the lock.
///
/// Made only when someone asks (a procedure reports, or something reads or watches its progress), so a procedure
/// nobody asks about pays nothing. A procedure keeps its node in its storage; a group links its children's nodes
/// to its own; a queue's node is kept by the queue and fed by a queue observer.
///
/// Locks: the node's lock is a leaf. A child tells its parent of a change after releasing its own lock, and
/// handlers (user code) run with no lock held, one value at a time, by whichever thread found the node idle.
final class ProgressNode: Sendable {
    private let state: PKMutex<ProgressNodeState>

    init(mode: ProgressNodeState.Mode, isFinished: Bool = false) {
        state = PKMutex(ProgressNodeState(mode: mode, isFinished: isFinished))
    }

    var value: ProcedureProgress { state.withLock { $0.value } }

    var mode: ProgressNodeState.Mode { state.withLock { $0.mode } }

    func report(completed: Int64, of total: Int64, message: String?) {
        perform(state.withLock { $0.report(completed: completed, of: total, message: message) })
    }

    func report(fraction: Double, message: String?) {
        perform(state.withLock { $0.report(fraction: fraction, message: message) })
    }

    func finish() {
        perform(state.withLock { $0.finish() })
    }

    func countFinishedChildren(_ count: Int) {
        perform(state.withLock { $0.countFinishedChildren(count) })
    }

    /// Makes `child` count toward this node's roll-up; `false` when it counts toward another's already (or this
    /// one's).
    @discardableResult
    func adopt(_ child: ProgressNode) -> Bool {
        guard child !== self, let (weight, value) = child.state.withLock({ $0.adopt(by: self) }) else {
            return false
        }
        perform(state.withLock { $0.childAdopted(ObjectIdentifier(child), weight: weight, value: value) })
        return true
    }

    /// Adds a handler, called with the current value first, then with each change, until it is removed (or, for a
    /// procedure, after the finished value).
    func subscribe(_ handler: @escaping @Sendable (ProcedureProgress) -> Void) -> UInt64 {
        let (id, effects) = state.withLock { $0.subscribe(handler) }
        perform(effects)
        return id
    }

    func unsubscribe(_ id: UInt64) {
        let removed = state.withLock { $0.unsubscribe(id) }
        withExtendedLifetime(removed) {}  // released here, after the lock
    }

    private func childChanged(
        _ child: ProgressNode, from old: ProgressWeight, to new: ProgressWeight, value: ProcedureProgress
    ) {
        perform(state.withLock { $0.childChanged(ObjectIdentifier(child), from: old, to: new, value: value) })
    }

    private func perform(_ effects: ProgressNodeState.Effects) {
        if let parent = effects.parent, let change = effects.change {
            parent.childChanged(self, from: change.from, to: change.to, value: change.value)
        }
        if effects.startDelivering { deliver() }
    }

    /// Hands values to the handlers until none is waiting; only one thread delivers at a time, so each handler
    /// sees the values in order, the latest one last.
    private func deliver() {
        while let delivery = state.withLock({ $0.nextDelivery() }) {
            for receiver in delivery.receivers { receiver.handler(delivery.value) }
            withExtendedLifetime(delivery.released) {}  // the handlers let go of, released here after the lock
        }
    }
}
