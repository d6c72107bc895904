#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The operating system's identifier of the calling thread, as tools like `top -H`, `perf` and debuggers show it.
///
/// Linux: the kernel thread id (`gettid`). Swift cannot call the variadic `syscall(SYS_gettid)`, and Glibc's
/// module map hides the `gettid()` wrapper (glibc 2.30 and later, musl 1.2.2 and later), so the wrapper is looked
/// up once with `dlsym`; without it, glibc's `pthread_t` value stands in (unique among live threads, but not what
/// other tools show), and 0 on musl. Darwin: `pthread_threadid_np`, the id Instruments and `lldb` show.
enum SystemThreadID {

    #if canImport(Glibc) || canImport(Musl)
        /// `gettid`'s address as an integer (Sendable), or 0 when the C library has none.
        private static let gettidAddress: UInt = {
            guard let symbol = dlsym(nil, "gettid") else { return 0 }
            return UInt(bitPattern: symbol)
        }()
    #endif

    /// A per-thread slot caching the id: a thread's id never changes, and asking the kernel is a system call.
    // PERF(W13): one system call per thread instead of one per traced procedure (about 0.1 µs each).
    private static let cacheKey: pthread_key_t = {
        var key = pthread_key_t()
        pthread_key_create(&key, nil)
        return key
    }()

    /// The calling thread's id (cached per thread).
    static func current() -> UInt64 {
        if let cached = pthread_getspecific(cacheKey) {
            return UInt64(UInt(bitPattern: cached))
        }
        let id = lookUp()
        if id != 0 { pthread_setspecific(cacheKey, UnsafeRawPointer(bitPattern: UInt(id))) }
        return id
    }

    /// Asks the system for the calling thread's id.
    private static func lookUp() -> UInt64 {
        #if canImport(Darwin)
            var id: UInt64 = 0
            pthread_threadid_np(nil, &id)
            return id
        #elseif canImport(Glibc) || canImport(Musl)
            if gettidAddress != 0, let symbol = UnsafeRawPointer(bitPattern: gettidAddress) {
                let gettid = unsafeBitCast(symbol, to: (@convention(c) () -> pid_t).self)
                return UInt64(gettid())
            }
            #if canImport(Glibc)
                return UInt64(pthread_self())
            #else
                return 0
            #endif
        #else
            return 0
        #endif
    }

    /// The process id, the trace's `pid`.
    static func process() -> UInt64 {
        #if canImport(Darwin) || canImport(Glibc) || canImport(Musl)
            return UInt64(getpid())
        #else
            return 0
        #endif
    }
}
