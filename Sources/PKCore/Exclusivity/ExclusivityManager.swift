/// The process-wide mutual-exclusion lock manager: procedures on any queue that share a category never run at
/// the same time.
///
/// A procedure requests its categories after its conditions pass and before it becomes ready, so waiting takes no
/// concurrency slot; it releases them when it finishes, or withdraws the request when it is cancelled first.
/// Grant callbacks run outside the manager's lock, on the thread that released or requested.
final class ExclusivityManager: Sendable {

    /// The one manager.
    static let shared = ExclusivityManager()

    private let state = PKMutex(ExclusivityState<ObjectIdentifier>())
    private let callbacks = PKMutex([ObjectIdentifier: @Sendable () -> Void]())

    /// Requests `categories` for `owner`; `onGrant` runs once when they are all granted (perhaps before this
    /// returns). Returns the categories that would deadlock instead, if any, in which case nothing is queued.
    func request(
        _ categories: Set<String>, for owner: ObjectIdentifier, ancestors: Set<ObjectIdentifier>,
        onGrant: @escaping @Sendable () -> Void
    ) -> [String]? {
        callbacks.withLock { $0[owner] = onGrant }
        let outcome = state.withLock { $0.request(categories, for: owner, ancestors: ancestors) }
        switch outcome {
        case .queued(let granted):
            if granted { runGrant(for: owner) }
            return nil
        case .duplicate:
            _ = callbacks.withLock { $0.removeValue(forKey: owner) }
            return nil
        case .deadlock(let blocked):
            _ = callbacks.withLock { $0.removeValue(forKey: owner) }
            return blocked
        }
    }

    /// Releases `owner`'s categories if granted, or withdraws its request if not; then grants whoever is next.
    /// Idempotent.
    func release(_ owner: ObjectIdentifier) {
        _ = callbacks.withLock { $0.removeValue(forKey: owner) }
        let granted = state.withLock { $0.remove(owner) }
        for next in granted { runGrant(for: next) }
    }

    /// The owner holding `category`, for tests and diagnostics.
    func holder(of category: String) -> ObjectIdentifier? {
        state.withLock { $0.holder(of: category) }
    }

    private func runGrant(for owner: ObjectIdentifier) {
        let callback = callbacks.withLock { $0.removeValue(forKey: owner) }
        callback?()
    }
}
