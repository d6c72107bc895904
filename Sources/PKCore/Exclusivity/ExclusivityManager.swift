/// The process-wide mutual-exclusion lock manager: procedures on any queue that share a category never run at
/// the same time.
///
/// A procedure requests its categories after its conditions pass and before it becomes ready, so waiting takes no
/// concurrency slot; it releases them when it finishes, or withdraws the request when it is cancelled first.
/// Grant callbacks run outside the manager's lock, on the thread that released or requested.
package final class ExclusivityManager: Sendable {

    /// The one manager.
    package static let shared = ExclusivityManager()

    private struct Registry {
        var exclusivity = ExclusivityState<ObjectIdentifier>()
        /// Grant callbacks of requests not granted yet.
        var callbacks: [ObjectIdentifier: @Sendable () -> Void] = [:]
    }

    private let registry = PKMutex(Registry())

    /// Requests `categories` for `owner`; `onGrant` runs once when they are all granted (perhaps before this
    /// returns). Returns the categories that would deadlock instead, if any, in which case nothing is queued.
    func request(
        _ categories: Set<String>, for owner: ObjectIdentifier, ancestors: Set<ObjectIdentifier>,
        onGrant: @escaping @Sendable () -> Void
    ) -> [String]? {
        let outcome = registry.withLock { registry -> ExclusivityState<ObjectIdentifier>.RequestOutcome in
            let outcome = registry.exclusivity.request(categories, for: owner, ancestors: ancestors)
            if case .queued(granted: false) = outcome { registry.callbacks[owner] = onGrant }
            return outcome
        }
        switch outcome {
        case .queued(let granted):
            if granted { onGrant() }
            return nil
        case .duplicate:
            return nil
        case .deadlock(let blocked):
            return blocked
        }
    }

    /// Releases `owner`'s categories if granted, or withdraws its request if not; then grants whoever is next.
    /// Idempotent.
    func release(_ owner: ObjectIdentifier) {
        let callbacks = registry.withLock { registry -> [@Sendable () -> Void] in
            registry.callbacks[owner] = nil
            return registry.exclusivity.remove(owner).compactMap { registry.callbacks.removeValue(forKey: $0) }
        }
        for callback in callbacks { callback() }
    }

    /// Forgets every request, granted or not, and grants the ones still waiting (their grant callbacks run, so
    /// their procedures go on). For test suites, between tests, once no procedure of the finished test can still
    /// be running: a procedure that holds a category keeps running, but no longer excludes anyone.
    package func reset() {
        let waiting = registry.withLock { registry -> [@Sendable () -> Void] in
            defer { registry = Registry() }
            return Array(registry.callbacks.values)
        }
        for callback in waiting { callback() }
    }

    /// How many owners have a request (granted or waiting); for tests.
    package var requestCount: Int { registry.withLock { $0.exclusivity.requests.count } }
}
