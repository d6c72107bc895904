#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which traced procedure's `execute()` the calling thread entered last, kept per thread.
///
/// A trace marks the thread as a procedure's `execute()` begins, and asks again on the thread the procedure finishes
/// on: still marked there means the procedure finished on its `execute()` thread before that thread started any
/// other procedure, so the thread was the procedure's from start to finish and a lane per thread can draw it as one
/// slice there without overlapping another's (see ``TraceRecord/finishedInPlace``).
// PERF(W13): a thread-local slot, one store at the start and one load at the finish (a few nanoseconds each).
enum ThreadExecuteMark {
    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Marks the calling thread as entering `procedure`'s `execute()`.
    @inline(__always)
    static func entering(_ procedure: ObjectIdentifier) {
        pthread_setspecific(key, UnsafeRawPointer(bitPattern: UInt(bitPattern: procedure)))
    }

    /// Whether the last `execute()` the calling thread entered is `procedure`'s.
    @inline(__always)
    static func isLast(_ procedure: ObjectIdentifier) -> Bool {
        UInt(bitPattern: pthread_getspecific(key)) == UInt(bitPattern: procedure)
    }
}
