import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

#if PK_TSAN
    /// A `pthread_mutex_t`-based stand-in for `Synchronization.Mutex`, compiled only for ThreadSanitizer runs
    /// (`-Xswiftc -DPK_TSAN`, see `Scripts/test-tsan.sh`).
    ///
    /// On Linux, `Mutex` waits with raw futex calls that ThreadSanitizer cannot see, so every access it protects
    /// is reported as a race. This type has the same `withLock` shape and uses a lock ThreadSanitizer intercepts,
    /// so the sanitizer checks the package's real locking discipline.
    package struct PKMutex<Value: ~Copyable>: ~Copyable, @unchecked Sendable {
        // @unchecked Sendable: `storage.value` is only touched inside `withLock`, under `storage.lock`.

        private final class Storage {
            let lock: UnsafeMutablePointer<pthread_mutex_t>
            nonisolated(unsafe) var value: Value

            init(_ value: consuming Value) {
                self.value = value
                lock = .allocate(capacity: 1)
                pthread_mutex_init(lock, nil)
            }

            deinit {
                pthread_mutex_destroy(lock)
                lock.deallocate()
            }
        }

        private let storage: Storage

        /// Creates the mutex holding `initialValue`.
        package init(_ initialValue: consuming sending Value) {
            storage = Storage(initialValue)
        }

        /// Runs `body` with exclusive access to the value.
        package borrowing func withLock<Result: ~Copyable, E: Error>(
            _ body: (inout sending Value) throws(E) -> sending Result
        ) throws(E) -> sending Result {
            pthread_mutex_lock(storage.lock)
            defer { pthread_mutex_unlock(storage.lock) }
            return try body(&storage.value)
        }
    }
#else
    /// The package's mutex: `Synchronization.Mutex`, except in ThreadSanitizer builds (see `PK_TSAN`), where a
    /// pthread-based equivalent the sanitizer understands takes its place.
    package typealias PKMutex<Value: ~Copyable> = Mutex<Value>
#endif
