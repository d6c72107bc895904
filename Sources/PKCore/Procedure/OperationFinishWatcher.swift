import Foundation
import Synchronization

/// Tells interested parties when a plain `Foundation.Operation` finishes.
///
/// Foundation on Linux has no KVO, so the watcher chains itself onto the operation's `completionBlock` once, and
/// checks `isFinished` after installing it so that a finish racing the install is not lost. Callbacks fire once,
/// on Foundation's completion thread or on the registering thread. The registry holds the operation until it
/// finishes, so its identity cannot be reused meanwhile.
enum OperationFinishWatcher {

    private struct Entry {
        let operation: Operation
        var callbacks: [@Sendable () -> Void]
    }

    private static let registry = PKMutex<[ObjectIdentifier: Entry]>([:])

    /// Registers `callback` to run when `operation` finishes; returns `false` (without registering) when it is
    /// already finished.
    static func whenFinished(_ operation: Operation, _ callback: @escaping @Sendable () -> Void) -> Bool {
        if operation.isFinished { return false }
        let id = ObjectIdentifier(operation)
        let needsHook = registry.withLock { registry -> Bool in
            if registry[id] != nil {
                registry[id]!.callbacks.append(callback)
                return false
            }
            registry[id] = Entry(operation: operation, callbacks: [callback])
            return true
        }
        if needsHook {
            let original = operation.completionBlock
            operation.completionBlock = {
                original?()
                fire(id)
            }
        }
        if operation.isFinished { fire(id) }
        return true
    }

    /// Runs and forgets every callback registered for `id`, once.
    static func fire(_ id: ObjectIdentifier) {
        guard let entry = registry.withLock({ $0.removeValue(forKey: id) }) else { return }
        for callback in entry.callbacks { callback() }
    }
}
