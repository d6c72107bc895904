import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The order in which the trace recorder's locks nest, outermost first. A lock is taken only while every lock the
/// thread holds is of a lower level; two locks of one level are never held together.
///
/// Every lock of the recorder is a ``TraceLock`` declared with its level, and the one foreign lock it takes while
/// holding its own (a procedure's, inside PKCore) is entered through ``TraceLockOrder/enteringProcedureLock(_:)``,
/// so a debug build checks the order on every acquisition; a release build compiles the checks away. PKCore's
/// `LOCKING.md` lists the same edge from its side.
enum TraceLockLevel: Int, Comparable, Sendable {
    /// A recorder shard (``TraceShard``): the procedures it numbered, its unfinished queue traces, its kept records.
    case shard = 1
    /// A procedure's own lock (PKCore's `Procedure.storage`), taken under a shard's to read the procedure's
    /// instrument (a ``QueueTrace``): a dependent traced by an observer and its dependency traced by the hook must
    /// agree, in one critical section, on which of them links the other.
    case procedure = 2
    /// One procedure's trace: a ``QueueTrace``'s state, a ``TraceObserver``'s state machine. A leaf: nothing is
    /// taken under it. (The recorder reads records from traces after releasing its shards' locks, so in practice
    /// it is taken alone.)
    case trace = 3

    static func < (lhs: TraceLockLevel, rhs: TraceLockLevel) -> Bool { lhs.rawValue < rhs.rawValue }
}

/// The debug-build check of ``TraceLockLevel``: which levels the calling thread holds, in a thread-local bit set.
enum TraceLockOrder {

    #if DEBUG
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            pthread_key_create(&key, nil)
            return key
        }()

        private static var held: UInt {
            get { UInt(bitPattern: pthread_getspecific(key)) }
            set { pthread_setspecific(key, UnsafeRawPointer(bitPattern: newValue)) }
        }
    #endif

    /// Records that the calling thread takes a lock of `level`; traps if it holds one of that level or above.
    @inline(__always)
    static func willTake(_ level: TraceLockLevel) {
        #if DEBUG
            precondition(
                mayTake(level),
                "trace lock order: taking a \(level) lock while holding levels \(levels(in: held))")
            held |= UInt(1) << level.rawValue
        #endif
    }

    #if DEBUG
        /// Whether the calling thread may take a lock of `level` now: it holds none of that level or above.
        static func mayTake(_ level: TraceLockLevel) -> Bool {
            held & ~((UInt(1) << level.rawValue) - 1) == 0
        }
    #endif

    /// Records that the calling thread released its lock of `level`.
    @inline(__always)
    static func didRelease(_ level: TraceLockLevel) {
        #if DEBUG
            held &= ~(UInt(1) << level.rawValue)
        #endif
    }

    /// Runs `body`, which takes a procedure's own lock (reading its instrument or its dependencies), checking that
    /// the calling thread may take it now.
    @inline(__always)
    static func enteringProcedureLock<Result>(_ body: () -> Result) -> Result {
        willTake(.procedure)
        defer { didRelease(.procedure) }
        return body()
    }

    /// Traps if the calling thread holds any trace lock: before reading an injected clock, which is user code
    /// (PKCore's `LOCKING.md`, rule 1).
    @inline(__always)
    static func assertNoneHeld(_ what: @autoclosure () -> String) {
        #if DEBUG
            precondition(held == 0, "trace lock order: \(what()) while holding levels \(levels(in: held))")
        #endif
    }

    #if DEBUG
        private static func levels(in bits: UInt) -> [TraceLockLevel] {
            [TraceLockLevel.shard, .procedure, .trace].filter { bits & (UInt(1) << $0.rawValue) != 0 }
        }
    #endif
}

/// A mutex at a ``TraceLockLevel``: ``withLock(_:)`` checks the lock order (in debug builds) and then takes it.
struct TraceLock<Value: ~Copyable>: ~Copyable, Sendable {
    let level: TraceLockLevel
    private let mutex: PKMutex<Value>

    init(_ level: TraceLockLevel, _ value: consuming sending Value) {
        self.level = level
        mutex = PKMutex(value)
    }

    /// Runs `body` with exclusive access to the value.
    @inline(__always)
    borrowing func withLock<Result: ~Copyable, E: Error>(
        _ body: (inout sending Value) throws(E) -> sending Result
    ) throws(E) -> sending Result {
        TraceLockOrder.willTake(level)
        defer { TraceLockOrder.didRelease(level) }
        return try mutex.withLock(body)
    }
}

extension ElapsedTime {
    /// ``nanoseconds()``, checking first (in debug builds) that the calling thread holds no trace lock: an injected
    /// clock is user code.
    @inline(__always)
    func traceNow() -> UInt64 {
        TraceLockOrder.assertNoneHeld("reading the clock")
        return nanoseconds()
    }
}
