extension Procedure {

    // MARK: - Reporting

    /// Reports that `completed` units of `total` are done, with an optional message; call it from the work, from
    /// any thread, as often as it likes.
    ///
    /// A group rolls up its children's progress, weighing each child by its `total` (a child that reports no units
    /// weighs 1): see ``ProgressMonitor``. A `total` of zero or less reports the message only. Reports made after
    /// the procedure finished, and reports on a group (whose progress is its children's), are ignored.
    ///
    /// Named `reportProgress` rather than given a `progress` property: `Procedure` is subclassed, and subclasses
    /// commonly declare `progress` themselves (Foundation's `ProgressReporting` asks for one).
    public final func reportProgress(completed: Int64, of total: Int64, message: String? = nil) {
        progressNode().report(completed: completed, of: total, message: message)
    }

    /// Reports the fraction done (from 0 to 1; values outside are clamped), with an optional message. See
    /// ``reportProgress(completed:of:message:)``.
    public final func reportProgress(fractionCompleted: Double, message: String? = nil) {
        progressNode().report(fraction: fractionCompleted, message: message)
    }

    // MARK: - Reading

    /// The procedure's progress now: what it reported, or for a group (a retry, a repeat, a batch) the roll-up of
    /// its children. Complete once the procedure has finished.
    ///
    /// Named `procedureProgress`, as ``procedureName`` is, so as not to take `progress` from subclasses. To be told
    /// of changes, use a ``ProgressMonitor``.
    public final var procedureProgress: ProcedureProgress {
        let node = progressNode()
        // Finished, but the finishing step has not completed the node yet: complete it now (idempotent), so that a
        // finished procedure never reads as unfinished.
        if isFinished { node.finish() }
        return node.value
    }

    // MARK: - The node

    /// The procedure's progress node, made on first use, and then linked to its children's, which are made and
    /// linked to theirs in turn: in a loop, not a recursion, so a deep nest of groups is linked safely.
    final func progressNode() -> ProgressNode {
        let (node, made) = makeProgressNodeIfNeeded()
        guard made else { return node }
        var pending: [(Procedure, ProgressNode)] = [(self, node)]
        while let (procedure, parent) = pending.popLast() {
            let (finished, children) = procedure.progressChildren()
            parent.countFinishedChildren(finished)
            for child in children {
                let (childNode, childMade) = child.makeProgressNodeIfNeeded()
                parent.adopt(childNode)
                if childMade { pending.append((child, childNode)) }
            }
        }
        return node
    }

    /// The procedure's progress node, and whether it was made now.
    private func makeProgressNodeIfNeeded() -> (ProgressNode, Bool) {
        let mode = progressMode
        return storage.withLock { state -> (ProgressNode, Bool) in
            if let node = state.progress { return (node, false) }
            let node = ProgressNode(mode: mode, isFinished: state.machine.state == .finished)
            state.progress = node
            return (node, true)
        }
    }

    /// The procedure's progress node if someone made it.
    final var existingProgressNode: ProgressNode? {
        storage.withLock { $0.progress }
    }
}
