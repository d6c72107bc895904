import Foundation
import Synchronization

/// A plain `Foundation.Operation` on a ``ProcedureQueue``: tracks its dependencies, starts it, and reports when
/// it finishes (synchronously when `start()` finishes it, otherwise through its completion block).
final class OperationNode: DependencyWaiter, @unchecked Sendable {
    // @unchecked Sendable: `state` is guarded by its Mutex; `queueIndex` is read and written only under the
    // owning ProcedureQueue's mutex.

    private struct State {
        var unfinishedDependencies = 0
        var isReady = false
        var isFinished = false
    }

    let operation: Operation
    private let queue: ProcedureQueue
    var queueIndex = -1
    private let state = PKMutex(State())

    init(operation: Operation, queue: ProcedureQueue) {
        self.operation = operation
        self.queue = queue
    }

    /// Starts waiting for the operation's dependencies.
    func enqueue() {
        let dependencies = operation.dependencies
        state.withLock { $0.unfinishedDependencies = dependencies.count + 1 }
        var alreadyFinished = 1
        for dependency in dependencies {
            let registered: Bool
            if let procedure = dependency as? Procedure {
                registered = procedure.addDependent(self)
            } else {
                registered = OperationFinishWatcher.whenFinished(dependency) { [self] in dependencyDidFinish() }
            }
            if !registered { alreadyFinished += 1 }
        }
        dependenciesDidFinish(count: alreadyFinished)
    }

    func dependencyDidFinish() {
        dependenciesDidFinish(count: 1)
    }

    private func dependenciesDidFinish(count: Int) {
        let ready = state.withLock { state -> Bool in
            state.unfinishedDependencies -= count
            guard state.unfinishedDependencies == 0, !state.isReady else { return false }
            state.isReady = true
            return true
        }
        if ready { queue.operationIsReady(self) }
    }

    /// Starts the operation; called by the queue on its dispatch queue.
    func start() {
        if !operation.isReady && !operation.isCancelled && !operation.isFinished {
            // POLLING (kept, issue 16): Foundation's own readiness lags ours by a moment (its completion
            // bookkeeping), and a plain `Operation` subclass may override `isReady` to wait for anything at all; try
            // again in 1 ms. A notification cannot replace this on Linux: swift-corelibs-foundation has no KVO, and
            // the `isReady` change an operation announces (`didChangeValue(forKey: "isReady")`) reaches only
            // Foundation's own `OperationQueue`; there is no completion-block-like hook for readiness as there is
            // for finishing (see `OperationFinishWatcher`). Only plain operations that are not ready when their
            // dependencies have finished poll; procedures never do.
            DispatchQueue.global().asyncAfter(deadline: .now() + .milliseconds(1)) { [self] in start() }
            return
        }
        _ = OperationFinishWatcher.whenFinished(operation) { [self] in didFinish() }
        if !operation.isFinished {
            // `ProcedureQueue.current` inside the operation's `main()`; the node holds its queue meanwhile.
            ProcedureQueue.runningPlainOperation(on: queue) { operation.start() }
        }
        if operation.isFinished { didFinish() }
    }

    private func didFinish() {
        let first = state.withLock { state -> Bool in
            guard !state.isFinished else { return false }
            state.isFinished = true
            return true
        }
        if first, queue.operationDidFinish(self) {
            QueueKeepAlive.giveBackSelfReference(Unmanaged.passUnretained(queue))
        }
    }
}
