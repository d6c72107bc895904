import Foundation
import PKCore
import PKTesting
import Synchronization

/// A queue delegate and observer that records each callback as `"willAdd:<name>"`, `"didAdd:<name>"`,
/// `"willFinish:<name>"`, `"didFinish:<name>"`, `"willAddOperation"`, `"didAddOperation"`, `"didFinishOperation"`.
final class RecordingQueueObserver: ProcedureQueueDelegate {
    private let storage = PKMutex<[String]>([])

    init() {}

    var callbacks: [String] { storage.withLock { $0 } }

    func callbacks(for name: String) -> [String] {
        callbacks.filter { $0.hasSuffix(":" + name) }.map { String($0.prefix { $0 != ":" }) }
    }

    private func record(_ entry: String) { storage.withLock { $0.append(entry) } }

    func procedureQueue(_ queue: ProcedureQueue, willAddOperation operation: Operation, context: (any Sendable)?) {
        record("willAddOperation")
    }
    func procedureQueue(_ queue: ProcedureQueue, didAddOperation operation: Operation, context: (any Sendable)?) {
        record("didAddOperation")
    }
    func procedureQueue(_ queue: ProcedureQueue, didFinishOperation operation: Operation) {
        record("didFinishOperation")
    }
    func procedureQueue(_ queue: ProcedureQueue, willAddProcedure procedure: Procedure, context: (any Sendable)?) {
        record("willAdd:\(procedure.procedureName)")
    }
    func procedureQueue(_ queue: ProcedureQueue, didAddProcedure procedure: Procedure, context: (any Sendable)?) {
        record("didAdd:\(procedure.procedureName)")
    }
    func procedureQueue(
        _ queue: ProcedureQueue, willFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        record("willFinish:\(procedure.procedureName)")
    }
    func procedureQueue(
        _ queue: ProcedureQueue, didFinishProcedure procedure: Procedure, withErrors errors: [any Error]
    ) {
        record("didFinish:\(procedure.procedureName)")
    }
}
