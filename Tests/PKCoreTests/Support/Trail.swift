import PKCore
import Synchronization

/// A thread-safe list of strings that tests append to from callbacks, to check ordering.
final class Trail: Sendable {
    private let storage = PKMutex<[String]>([])

    init() {}

    func append(_ entry: String) { storage.withLock { $0.append(entry) } }

    var entries: [String] { storage.withLock { $0 } }
}
