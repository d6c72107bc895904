#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Which procedures' event contexts the current thread is draining, innermost first.
///
/// A thread can drain several procedures' events at once (a procedure's observer cancels another, whose events
/// then run inline). `synchronize` uses this to run inline instead of waiting for itself. The list lives on the
/// draining threads' stacks; the thread-specific key points at the innermost entry.
enum DrainingProcedures {

    private struct Entry {
        let procedure: ObjectIdentifier
        let outer: UnsafeMutableRawPointer?
    }

    private static let key: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// Runs `body` with `procedure` recorded as being drained by this thread.
    static func withDraining<R>(_ procedure: Procedure, _ body: () -> R) -> R {
        let outer = pthread_getspecific(key)
        var entry = Entry(procedure: ObjectIdentifier(procedure), outer: outer)
        return withUnsafeMutablePointer(to: &entry) { pointer in
            pthread_setspecific(key, pointer)
            defer { pthread_setspecific(key, outer) }
            return body()
        }
    }

    /// Whether this thread is draining `procedure`'s events.
    static func isDraining(_ procedure: Procedure) -> Bool {
        var current = pthread_getspecific(key)
        let id = ObjectIdentifier(procedure)
        while let pointer = current {
            let entry = pointer.assumingMemoryBound(to: Entry.self).pointee
            if entry.procedure == id { return true }
            current = entry.outer
        }
        return false
    }
}
