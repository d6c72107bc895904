import PKConditions

/// A thread-safe, ordered list of strings that tests append to, to check the order things happened in.
final class Trail: Sendable {
    private let list = PKMutex<[String]>([])

    init() {}

    func append(_ entry: String) { list.withLock { $0.append(entry) } }

    var entries: [String] { list.withLock { $0 } }
}
