/// A flag that is set once; ``claim()`` returns `true` only to its first caller.
///
/// Used to honour only the first call of a completion handler.
final class OnceFlag: Sendable {

    private let claimed = PKMutex(false)

    /// Creates an unclaimed flag.
    init() {}

    /// Marks the flag claimed; returns `true` when this call was the first.
    func claim() -> Bool {
        claimed.withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
