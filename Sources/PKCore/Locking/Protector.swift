/// A value guarded by a lock: ProcedureKit's `Protector`, for state shared between a procedure's `execute()`, its
/// observers and other threads.
///
/// ```swift
/// let results = Protector<[String]>([])
/// results.append("first")
/// let count = results.read { $0.count }
/// results.write { $0.removeAll() }
/// ```
///
/// Thread-safe: every member takes the lock. The closures given to ``read(_:)`` and ``write(_:)`` run under it,
/// so keep them short and do not call back into the same protector from them (that deadlocks).
public final class Protector<T: Sendable>: Sendable {
    private let mutex: PKMutex<T>

    /// Creates a protector holding `ward`.
    public init(_ ward: T) {
        mutex = PKMutex(ward)
    }

    /// A copy of the value, read under the lock.
    public var access: T { mutex.withLock { $0 } }

    /// Runs `block` with the value, under the lock, and returns what it returns.
    public func read<U: Sendable>(_ block: (T) -> U) -> U {
        mutex.withLock { block($0) }
    }

    /// Runs `block` with exclusive access to the value, under the lock, and returns what it returns.
    @discardableResult
    public func write<U: Sendable>(_ block: (inout T) -> U) -> U {
        mutex.withLock { block(&$0) }
    }

    /// Replaces the value.
    public func overwrite(with newValue: T) {
        mutex.withLock { $0 = newValue }
    }
}

extension Protector where T: RangeReplaceableCollection {
    /// Appends `newElement` to the collection, under the lock.
    public func append(_ newElement: T.Element) where T.Element: Sendable {
        mutex.withLock { $0.append(newElement) }
    }

    /// Appends `newElements` to the collection, under the lock.
    public func append<S: Sequence & Sendable>(contentsOf newElements: S) where S.Element == T.Element {
        mutex.withLock { $0.append(contentsOf: newElements) }
    }
}

extension Protector where T: Strideable, T.Stride: Sendable {
    /// Advances the value by `stride`, under the lock (`counter.advance(by: 1)`).
    public func advance(by stride: T.Stride) {
        mutex.withLock { $0 = $0.advanced(by: stride) }
    }
}
