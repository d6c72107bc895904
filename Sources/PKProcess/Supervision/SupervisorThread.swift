#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A detached POSIX thread for a ``ChildSupervisor``, with the system's default stack: the procedure finishes on
/// it, and whatever the queue then runs there (dependents' observers, user code) must not find a small stack.
///
/// PERF(W21): `pthread_create` directly, not `Foundation.Thread`, whose object, bookkeeping and naming cost about a
/// third of a short process's overhead over a bare `posix_spawn` loop.
enum SupervisorThread {

    private final class Body {
        let run: @Sendable () -> Void
        init(_ run: @escaping @Sendable () -> Void) { self.run = run }
    }

    /// Runs `body` on a new detached thread; the error when the system has no thread to give.
    static func start(_ body: @escaping @Sendable () -> Void) -> SystemCallError? {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        #if canImport(Darwin)
            var thread: pthread_t? = nil
        #else
            var thread = pthread_t()
        #endif
        let created = pthread_create(&thread, &attributes, supervisorThreadEntry, context)
        guard created == 0 else {
            Unmanaged<Body>.fromOpaque(context).release()
            return SystemCallError(call: "pthread_create", number: created)
        }
        return nil
    }

    #if canImport(Darwin)
        private static let supervisorThreadEntry: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? =
            { context in
                Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                return nil
            }
    #else
        private static let supervisorThreadEntry:
            @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? =
                { context in
                    guard let context else { return nil }
                    Unmanaged<Body>.fromOpaque(context).takeRetainedValue().run()
                    return nil
                }
    #endif
}
