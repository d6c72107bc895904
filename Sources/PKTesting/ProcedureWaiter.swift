import Foundation
import Synchronization

/// Waits for procedures to finish, with a timeout, so that a broken test fails instead of hanging. A NaN timeout
/// counts as zero, as in every PKTesting wait.
///
/// Both waits attach a DidFinish observer to each procedure. A procedure that has already finished tells an
/// observer attached later at once, so waiting on a finished procedure returns immediately. The observer is
/// released when the procedure finishes, or never if it never does (a procedure keeps its observers until then).
public enum ProcedureWaiter {

    /// Blocks the calling thread until every procedure in `procedures` has finished, or `timeout` seconds pass.
    ///
    /// Returns `true` when all of them finished in time. Do not call it from inside one of those procedures'
    /// events, and avoid it in Swift concurrency code waiting on work that itself needs the cooperative thread
    /// pool (such as an `AsyncProcedure`); use `waitForFinish(_:timeout:)` there.
    public static func wait(for procedures: [Procedure], timeout: TimeInterval) -> Bool {
        let group = DispatchGroup()
        for procedure in procedures {
            group.enter()
            let left = Atomic<Bool>(false)
            procedure.addObserver(
                BlockObserver<Procedure>(didFinish: { _, _ in
                    if !left.exchange(true, ordering: .relaxed) { group.leave() }
                }))
        }
        return group.wait(timeout: .now() + waitableSeconds(timeout)) == .success
    }

    /// Blocks the calling thread until `procedure` has finished, or `timeout` seconds pass.
    public static func wait(for procedure: Procedure, timeout: TimeInterval) -> Bool {
        wait(for: [procedure], timeout: timeout)
    }
}

/// Suspends until `procedure` has finished or `timeout` seconds have passed; returns `true` when it finished.
///
/// No task is left behind: the wait is a continuation resumed once, by whichever comes first of the
/// procedure's DidFinish, the timeout (a dispatch timer, which stays scheduled until it fires and then does
/// nothing) or the cancellation of the calling Task (which returns `false` and does not cancel the procedure).
public func waitForFinish(_ procedure: Procedure, timeout: TimeInterval) async -> Bool {
    let gate = FinishGate()
    return await withTaskCancellationHandler {
        await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
            gate.install(continuation)
            DispatchQueue.global().asyncAfter(deadline: .now() + waitableSeconds(timeout)) { gate.resume(false) }
            procedure.addObserver(BlockObserver<Procedure>(didFinish: { _, _ in gate.resume(true) }))
        }
    } onCancel: {
        gate.resume(false)
    }
}

/// Suspends until every procedure in `procedures` has finished, or `timeout` seconds have passed in all.
public func waitForFinish(_ procedures: [Procedure], timeout: TimeInterval) async -> Bool {
    let deadline = Date().addingTimeInterval(waitableSeconds(timeout))
    for procedure in procedures {
        guard await waitForFinish(procedure, timeout: max(0, deadline.timeIntervalSinceNow)) else { return false }
    }
    return true
}

/// A continuation resumed exactly once, by whichever of its resumers comes first.
private final class FinishGate: Sendable {

    private struct State {
        var continuation: CheckedContinuation<Bool, Never>?
        /// Set when a resume arrives before the continuation is installed (cancellation can).
        var early: Bool?
    }

    private let state = PKMutex(State())

    func install(_ continuation: CheckedContinuation<Bool, Never>) {
        let early = state.withLock { state -> Bool? in
            if let early = state.early { return early }
            state.continuation = continuation
            return nil
        }
        if let early { continuation.resume(returning: early) }
    }

    func resume(_ value: Bool) {
        let continuation = state.withLock { state -> CheckedContinuation<Bool, Never>? in
            guard let continuation = state.continuation else {
                if state.early == nil { state.early = value }
                return nil
            }
            state.continuation = nil
            state.early = value
            return continuation
        }
        continuation?.resume(returning: value)
    }
}
