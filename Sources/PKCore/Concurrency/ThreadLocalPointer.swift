#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A per-thread pointer to a value that lives on one of that thread's own stack frames: the frame installs it for
/// the duration of a call (``withCurrent(_:restoring:_:)``) and code further down the same thread reaches it through
/// ``current``.
///
/// Invariant: ``current`` is `nil` or points at a live stack value of the calling thread, because only
/// `withCurrent` sets it and it restores the previous value before its frame returns. Nothing is allocated and
/// nothing is destroyed with the thread (the key has no destructor).
///
/// PERF(W1, W3, W5): the engine's per-thread state (a worker loop's hand-off slot, the procedures a thread drains,
/// the cascade trampoline's frame) costs one `pthread_getspecific` to read, with no allocation, lock or reference
/// count (Foundation's `Thread.current.threadDictionary` would allocate and hash).
struct ThreadLocalPointer<Pointee>: Sendable {
    private let key: pthread_key_t

    /// Creates a key; make one per use, held in a `static let` (keys are a limited resource and are never freed).
    init() {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        self.key = key
    }

    /// The pointer the calling thread installed, innermost first; `nil` outside any ``withCurrent(_:restoring:_:)``.
    var current: UnsafeMutablePointer<Pointee>? {
        @inline(__always) get { pthread_getspecific(key)?.assumingMemoryBound(to: Pointee.self) }
    }

    /// Runs `body` with `pointer` as the calling thread's ``current``, then restores `previous`, which must be what
    /// ``current`` was on entry (callers that read it already pass it instead of having it read again).
    @inline(__always)
    func withCurrent<R>(
        _ pointer: UnsafeMutablePointer<Pointee>, restoring previous: UnsafeMutablePointer<Pointee>?, _ body: () -> R
    ) -> R {
        pthread_setspecific(key, pointer)
        defer { pthread_setspecific(key, previous) }
        return body()
    }

    /// Runs `body` with `pointer` as the calling thread's ``current``, then restores the previous one.
    @inline(__always)
    func withCurrent<R>(_ pointer: UnsafeMutablePointer<Pointee>, _ body: () -> R) -> R {
        withCurrent(pointer, restoring: current, body)
    }
}
