import Dispatch

/// Dependency cycles: a queue on which nothing can make progress looks for procedures waiting on each other, and
/// cancels every member of every cycle it finds with ``ProcedureKitError/Context/dependencyCycle(_:)``.
extension ProcedureQueue {

    /// Schedules a check for a dependency cycle if nothing can make progress.
    func checkForStallSoon() {
        if state.withLock({ $0.reserveStallCheck() }) { scheduleStallCheck() }
    }

    /// Schedules the check ``ProcedureQueueState/reserveStallCheck()`` reserved.
    func scheduleStallCheck() {
        DispatchQueue.global(qos: .utility).asyncAfter(deadline: .now() + .milliseconds(5)) { [weak self] in
            self?.checkForCycles()
        }
    }

    private func checkForCycles() {
        let candidates = state.withLock { state -> [Procedure]? in
            state.stallCheckScheduled = false
            // A batch still being added may close a cycle through procedures not added yet: cancelling only the
            // part found now would let the rest run (the batch checks again when it is done).
            guard state.isStalled, state.batchAdds == 0 else { return nil }
            return state.members.compactMap { member -> Procedure? in
                if case .procedure(let procedure) = member { return procedure }
                return nil
            }
        }
        guard let candidates else { return }
        // Cancel every procedure of every cycle before any of them may run: releasing one cycle's members first
        // would let a procedure of an overlapping cycle become ready, and start, before it is cancelled.
        let cycles = DependencyCycleDetector.cycles(among: candidates)
        for cycle in cycles {
            let error = ProcedureKitError.dependencyCycle(cycle.path.map(\.procedureName))
            Log.write(
                .warning, "\(error); cancelling the \(cycle.members.count) procedures caught in it", subsystem: name)
            Procedure.cancelTogether(cycle.members, withErrors: [error], becomeReady: false)
        }
        for procedure in cycles.flatMap(\.members) { procedure.becomeReadyIfWaiting() }
    }
}
