import Foundation
import PKCore
import Synchronization

// MARK: - Progress (W20)

/// W1 with the queue's progress watched: every procedure added gets a progress node linked to the queue's, and a
/// handler hears each change. With `reporting`, each procedure also reports its progress twice from its block.
func procedureQueueIndependentWithProgress(_ count: Int, reporting: Bool) {
    let queue = ProcedureQueue()
    let monitor = ProgressMonitor(queue)
    let changes = Atomic<Int>(0)
    monitor.addHandler { _ in changes.wrappingAdd(1, ordering: .relaxed) }
    for _ in 0..<count {
        if reporting {
            let procedure = ReportingBlock()
            queue.add(procedure: procedure)
        } else {
            queue.add(procedure: BlockProcedure {})
        }
    }
    queue.waitUntilAllOperationsAreFinished()
    precondition(monitor.progress.fractionCompleted == 1, "W20: the roll-up did not complete")
    withExtendedLifetime(monitor) {}
}

/// A procedure that reports half-way and done, as a real one reports its steps.
final class ReportingBlock: Procedure, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    override func execute() {
        reportProgress(completed: 1, of: 2)
        reportProgress(completed: 2, of: 2)
        finish()
    }
}

/// The W20 row: W1 with nobody asking for progress (W1 itself, alternating), with the queue's progress watched, and
/// with each procedure also reporting.
func progressWorkload(count n: Int, w1Median: Double) -> Workload {
    Workload(
        id: "W20", title: "\(n) independent, progress watched", operations: n,
        contenders: [
            ("queue progress watched", { procedureQueueIndependentWithProgress(n, reporting: false) }),
            ("… and each procedure reporting twice", { procedureQueueIndependentWithProgress(n, reporting: true) }),
            ("reference: W1 again, alternating (progress unused)", { procedureQueueIndependent(n) }),
        ],
        target: { m in
            let w1Again = m["reference: W1 again, alternating (progress unused)"] ?? .nan
            let watched = (m["queue progress watched"] ?? .nan) / w1Again
            let reporting = (m["… and each procedure reporting twice"] ?? .nan) / w1Again
            let unused = w1Again / w1Median
            return (
                String(
                    format: "watched ≤2×W1 (%.2f; reporting %.2f; unused W1 again / W1 %.2f)", watched, reporting,
                    unused),
                watched <= 2
            )
        })
}
