/// A flag that is set once; ``claim()`` returns `true` only to its first caller.
///
/// Used to honour only the first call of a completion handler.
final class OnceFlag: Sendable {

    private let claimed = PKMutex(false)

    /// Creates an unclaimed flag.
    init() {}

    /// Marks the flag claimed; returns `true` when this call was the first.
    func claim() -> Bool {
        claimed.claimOnce()
    }
}

extension PKMutex where Value == Bool {
    /// Sets the flag; returns `true` when this call was the one that set it. The same as ``OnceFlag`` without an
    /// object of its own, for a flag stored in its owner (PERF(W26): the async value procedures).
    func claimOnce() -> Bool {
        withLock { claimed in
            defer { claimed = true }
            return !claimed
        }
    }
}
