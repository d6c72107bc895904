/// The progress of one procedure or queue, shared by everything that reports into it or watches it: a
/// ``ProgressNodeState`` behind a lock, and the effects it returns carried out after the lock.
///
/// Made only when someone asks (a procedure reports, or something reads or watches its progress), so a procedure
/// nobody asks about pays nothing. A procedure keeps its node in its storage; a group links its children's nodes
/// to its own; a queue's node is kept by the queue and fed by a queue observer.
///
/// Locks: a child tells its parent of a change after releasing its own lock, and handlers (user code) run with no
/// lock held, one value at a time, by whichever thread found the node idle. Adopting a child is the one nesting:
/// the parent's lock, then the child's (an ancestor's before a descendant's, never the other way), so that no report
/// of the child can fall between its adoption and its parent counting it.
///
/// Nothing recurses once per level of nesting: a change climbs to the root in a loop, and a group's node links its
/// children's (and their children's) in a loop too, so a 100,000-deep nest of groups is watched safely.
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
        guard child !== self else { return false }
        let key = ObjectIdentifier(child)
        let effects = state.withLock { parent -> ProgressNodeState.Effects? in
            let generation = parent.generationOfNextChild
            guard let (weight, value, revision) = child.state.withLock({ $0.adopt(by: self, generation: generation) })
            else { return nil }
            return parent.childAdopted(key, weight: weight, value: value, revision: revision)
        }
        guard let effects else { return false }
        perform(effects)
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

    /// Carries out `effects`: delivers this node's value if it must, then tells its parent of the change, and so on
    /// up to the root, in a loop.
    private func perform(_ effects: ProgressNodeState.Effects) {
        var node = self
        var effects = effects
        while true {
            if effects.startDelivering { node.deliver() }
            guard let parent = effects.parent, let change = effects.change else { return }
            let child = ObjectIdentifier(node)
            effects = parent.state.withLock { $0.childChanged(child, change) }
            node = parent
        }
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
