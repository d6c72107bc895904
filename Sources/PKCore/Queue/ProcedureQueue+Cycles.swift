import Dispatch

/// Dependency cycles: every member of a cycle is cancelled together with
/// ``ProcedureKitError/Context/dependencyCycle(_:)``, whenever and however the cycle was closed.
///
/// A cycle is closed either by the arrival of its last member, which then has a dependent that arrived before it
/// (`Procedure.Arrival.hadEarlyDependents`), or by a dependency added to a waiting procedure: the queue looks for
/// cycles through such a procedure at once, while its enqueue token still keeps it from becoming ready
/// (`Procedure.addDependency(_:)` for the second). Procedures added together (`add(procedures:)`, a group's
/// initial children) are held until all of them are here and checked in one pass (`beginBatch()`/`endBatch()`),
/// so that a cycle among them is never found, and cancelled, in part. Anything else that keeps a queue from making
/// progress is caught by the stall check: a queue on which nothing is running or ready while something waits
/// looks for cycles among everything it holds.
extension ProcedureQueue {

    /// Cancels every cycle through `procedures` (each waiting for dependencies) at once. A cycle some of whose
    /// members were already cancelled for a cycle before this one closed it (it was found while its other
    /// members were still arriving) has the rest of its members cancelled now, with the whole cycle named.
    ///
    /// It explores at most ``arrivalCheckLimit`` waiting procedures: this runs as procedures arrive, and a graph
    /// added in an unusual order would otherwise cost a walk of everything waiting per arrival. A cycle through
    /// more is left to the stall check.
    func cancelCycles(through procedures: [Procedure], limit: Int = arrivalCheckLimit) {
        cancel(DependencyCycleDetector.cycles(among: procedures, limit: limit))
    }

    /// How many procedures a check as a procedure arrives explores at most.
    static let arrivalCheckLimit = 10_000

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
        cancel(DependencyCycleDetector.cycles(among: candidates))
    }

    private func cancel(_ cycles: [DependencyCycleDetector.Cycle]) {
        guard !cycles.isEmpty else { return }
        // Cancel every procedure of every cycle before any of them may run: releasing one cycle's members first
        // would let a procedure of an overlapping cycle become ready, and start, before it is cancelled.
        for cycle in cycles {
            let error = ProcedureKitError.dependencyCycle(cycle.path.map(\.procedureName))
            Log.write(
                .warning, "\(error); cancelling the \(cycle.toCancel.count) procedures caught in it", subsystem: name)
            for procedure in cycle.toCancel { CycleRemnants.record(procedure) }
            Procedure.cancelTogether(cycle.toCancel, withErrors: [error], becomeReady: false)
        }
        for procedure in cycles.flatMap(\.toCancel) { procedure.becomeReadyIfWaiting() }
    }
}
