import Foundation
import PKTesting
import Testing

/// The longest any test waits for something that should happen quickly; reaching it means a hang, and fails.
let hangTimeout: TimeInterval = 20

/// Blocks until every procedure has finished; records an issue (instead of hanging) after `timeout`.
@discardableResult
func waitForAll(
    _ procedures: [Procedure], timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let finished = ProcedureWaiter.wait(for: procedures, timeout: timeout)
    if !finished {
        let names = procedures.filter { !$0.isFinished }.map(\.procedureName)
        Issue.record("timed out waiting for \(names) to finish", sourceLocation: sourceLocation)
    }
    return finished
}

/// Blocks until every procedure has finished; records an issue (instead of hanging) after ``hangTimeout``.
@discardableResult
func waitForAll(_ procedures: Procedure..., sourceLocation: SourceLocation = #_sourceLocation) -> Bool {
    waitForAll(procedures, sourceLocation: sourceLocation)
}

/// Waits on a semaphore; records an issue (instead of hanging) after `timeout`.
@discardableResult
func waitFor(
    _ semaphore: DispatchSemaphore, _ what: String, timeout: TimeInterval = hangTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let ok = semaphore.wait(timeout: .now() + timeout) == .success
    if !ok { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    return ok
}

/// Waits until the queue is empty, failing (instead of hanging) after `timeout`.
@discardableResult
func waitUntilEmpty(
    _ queue: ProcedureQueue, timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        queue.waitUntilAllOperationsAreFinished()
        done.signal()
    }
    return waitFor(done, "the queue to empty", timeout: timeout, sourceLocation: sourceLocation)
}

/// A category no other test uses: the exclusivity manager is process-wide and tests run in parallel.
func uniqueCategory(_ label: String = #function) -> String {
    "\(label)-\(UUID().uuidString)"
}

extension Procedure {
    /// The first error as a `ProcedureKitError`, if it is one.
    var kitError: ProcedureKitError? { error as? ProcedureKitError }
}

extension Pending where T == ConditionResult {
    /// `"satisfied"`, `"ignored"`, `"failed"` or `"pending"`, for comparing outputs.
    var outcome: String {
        switch self {
        case .pending: "pending"
        case .ready(.success(true)): "satisfied"
        case .ready(.success(false)): "ignored"
        case .ready(.failure): "failed"
        }
    }
}
