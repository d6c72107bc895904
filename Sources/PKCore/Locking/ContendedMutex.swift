#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A mutex for state that several threads hit at a high rate (a queue's scheduler state).
///
/// On Linux `Synchronization.Mutex` waits on a priority-inheritance futex: every contended acquisition and release
/// goes through the kernel. A queue's state is taken by the thread adding work and by every worker finishing it,
/// so it is contended often and briefly; glibc's adaptive mutex spins for a short while first, which suits
/// critical sections this short. Elsewhere this is a default `pthread_mutex_t`. ThreadSanitizer understands it.
final class ContendedMutex<Value>: @unchecked Sendable {
    // @unchecked Sendable: `value` is only touched inside `withLock`, under `lock`.

    private let lock: UnsafeMutablePointer<pthread_mutex_t>
    private var value: Value

    /// Creates the mutex holding `initialValue`.
    init(_ initialValue: Value) {
        value = initialValue
        lock = .allocate(capacity: 1)
        var attributes = pthread_mutexattr_t()
        pthread_mutexattr_init(&attributes)
        #if canImport(Glibc)
            pthread_mutexattr_settype(&attributes, Int32(PTHREAD_MUTEX_ADAPTIVE_NP))
        #endif
        pthread_mutex_init(lock, &attributes)
        pthread_mutexattr_destroy(&attributes)
    }

    deinit {
        pthread_mutex_destroy(lock)
        lock.deallocate()
    }

    /// Runs `body` with exclusive access to the value.
    func withLock<Result, E: Error>(_ body: (inout Value) throws(E) -> Result) throws(E) -> Result {
        pthread_mutex_lock(lock)
        defer { pthread_mutex_unlock(lock) }
        return try body(&value)
    }
}
