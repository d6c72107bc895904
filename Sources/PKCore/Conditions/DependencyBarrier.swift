import Foundation

/// Runs a block once every operation in a list has finished (at once if they all have).
///
/// Procedures tell the barrier directly when they finish; plain operations are watched through their
/// completion block. The block runs on the thread that finishes the last operation, or the creating thread.
final class DependencyBarrier: DependencyWaiter, @unchecked Sendable {
    // @unchecked Sendable: `remaining` and `action` are guarded by `state`'s PKMutex.

    private let state: PKMutex<(remaining: Int, action: (@Sendable () -> Void)?)>

    /// Waits for `operations`, then runs `action` once.
    init(operations: [Operation], action: @escaping @Sendable () -> Void) {
        state = PKMutex((operations.count + 1, action))
        let alreadyFinished = register(asDependentOf: operations)
        finished(count: alreadyFinished + 1)  // + 1: the count held while registering
    }

    func dependencyDidFinish() {
        finished(count: 1)
    }

    /// Drops the action without running it.
    func cancel() {
        state.withLock { $0.action = nil }
    }

    private func finished(count: Int) {
        let action = state.withLock { state -> (@Sendable () -> Void)? in
            state.remaining -= count
            guard state.remaining == 0 else { return nil }
            let action = state.action
            state.action = nil
            return action
        }
        action?()
    }
}
