import Foundation
import PKCore
import Testing

// Waiting helpers for this package's own Swift Testing suites: each waits with a timeout and records an issue
// (instead of hanging) when the wait runs out. `package`, not public: they are not part of PKTesting's API.

/// The longest any test waits for something that should happen quickly; reaching it means a hang, and fails.
///
/// Sixty seconds, not less: the whole suite runs in parallel on two cores, and a CI run once saw every test of a
/// process make no progress for about 20 s at once (a DNS lookup of the reachability tests took 19 s in the same
/// window), which failed every test whose wait began before it.
package let hangTimeout: TimeInterval = 60

/// Blocks until every procedure has finished; records an issue (instead of hanging) after `timeout`.
@discardableResult
package func waitForAll(
    _ procedures: [Procedure], timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let finished = ProcedureWaiter.wait(for: procedures, timeout: timeout)
    if !finished {
        let names = procedures.filter { !$0.isFinished }.map(\.procedureName)
        Issue.record("timed out waiting for \(names) to finish", sourceLocation: sourceLocation)
    }
    return finished
}

/// Blocks until every procedure has finished; records an issue (instead of hanging) after `timeout`.
@discardableResult
package func waitForAll(
    _ procedures: Procedure..., timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    waitForAll(procedures, timeout: timeout, sourceLocation: sourceLocation)
}

/// Waits on a semaphore; records an issue (instead of hanging) after `timeout`.
@discardableResult
package func waitFor(
    _ semaphore: DispatchSemaphore, _ what: String, timeout: TimeInterval = hangTimeout,
    sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let ok = semaphore.wait(timeout: .now() + waitableSeconds(timeout)) == .success
    if !ok { Issue.record("timed out waiting for \(what)", sourceLocation: sourceLocation) }
    return ok
}

/// Waits until the queue is empty, failing (instead of hanging) after `timeout`.
@discardableResult
package func waitUntilEmpty(
    _ queue: ProcedureQueue, timeout: TimeInterval = hangTimeout, sourceLocation: SourceLocation = #_sourceLocation
) -> Bool {
    let done = DispatchSemaphore(value: 0)
    DispatchQueue.global().async {
        queue.waitUntilAllOperationsAreFinished()
        done.signal()
    }
    return waitFor(done, "the queue to empty", timeout: timeout, sourceLocation: sourceLocation)
}

/// Runs `body` on a thread of its own and returns its result, suspending the calling task meanwhile. A long test
/// that blocks (waits for procedures, holds ``GlobalLogSettings``) then holds no thread of the cooperative pool,
/// which on Linux is Dispatch's global pool: two such tests would otherwise stall every other test on a 2-core
/// machine. `body` runs outside the test's task, so it must not record issues itself: return what failed.
package func onThreadOfItsOwn<R: Sendable>(_ body: @escaping @Sendable () -> R) async -> R {
    await withCheckedContinuation { continuation in
        Thread { continuation.resume(returning: body()) }.start()
    }
}
