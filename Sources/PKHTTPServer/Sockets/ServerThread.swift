#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Starts the server's threads: detached POSIX threads with the system's default stack size, one for the
/// acceptor and one per open connection (bounded by the connection cap). `pthread_create` directly, so that
/// failing to get a thread is an answer (the connection then gets 503), not a crash.
enum ServerThread {

    /// Runs `body` on a new detached thread; `false` when the system has no thread to give.
    static func start(_ body: @escaping @Sendable () -> Void) -> Bool {
        var attributes = pthread_attr_t()
        pthread_attr_init(&attributes)
        defer { pthread_attr_destroy(&attributes) }
        pthread_attr_setdetachstate(&attributes, Int32(PTHREAD_CREATE_DETACHED))
        let context = Unmanaged.passRetained(Job(body)).toOpaque()
        #if canImport(Darwin)
            var thread: pthread_t? = nil
        #else
            var thread = pthread_t()
        #endif
        guard pthread_create(&thread, &attributes, entry, context) == 0 else {
            Unmanaged<Job>.fromOpaque(context).release()
            return false
        }
        return true
    }

    private final class Job {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }

    #if canImport(Darwin)
        private static let entry: @convention(c) (UnsafeMutableRawPointer) -> UnsafeMutableRawPointer? = { raw in
            Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }
    #else
        private static let entry: @convention(c) (UnsafeMutableRawPointer?) -> UnsafeMutableRawPointer? = { raw in
            guard let raw else { return nil }
            Unmanaged<Job>.fromOpaque(raw).takeRetainedValue().body()
            return nil
        }
    #endif
}
