#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The system calls PKProcess needs that Swift's C library module does not import (glibc declares them only under
/// `_GNU_SOURCE`), looked up once with `dlsym`; each is `nil` where the C library lacks it, and its caller falls
/// back (see each member).
enum SystemCalls {
    typealias Pipe2 = @convention(c) (UnsafeMutablePointer<Int32>?, Int32) -> Int32
    typealias PidfdOpen = @convention(c) (pid_t, UInt32) -> Int32
    typealias AddClosefrom = @convention(c) (UnsafeMutableRawPointer?, Int32) -> Int32
    typealias AddChdir = @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?) -> Int32
    typealias PidfdSendSignal = @convention(c) (Int32, Int32, UnsafeMutableRawPointer?, UInt32) -> Int32
    typealias Tee = @convention(c) (Int32, Int32, Int, UInt32) -> Int

    /// glibc ≥ 2.9. Without it, `pipe` then `fcntl(FD_CLOEXEC)` (a child spawned by another thread between the two
    /// calls may inherit the pipe: only `addclosefrom` below then keeps it out of our children).
    static let pipe2: Pipe2? = lookUp("pipe2")

    /// glibc ≥ 2.36 on Linux ≥ 5.3: a descriptor that becomes readable when the child exits. Without it the
    /// supervisor polls `waitpid(WNOHANG)`.
    static let pidfdOpen: PidfdOpen? = lookUp("pidfd_open")

    /// glibc ≥ 2.36: signals the process a pidfd names, or (with ``pidfdSignalProcessGroup``, Linux ≥ 6.9) its process
    /// group. The pidfd holds the kernel's record of the pid, not its number, so the signal never reaches a process
    /// that was given the number since. Without it, a child's group is ended before the child is reaped (see
    /// ``ChildSupervisor``).
    static let pidfdSendSignal: PidfdSendSignal? = lookUp("pidfd_send_signal")

    /// `PIDFD_SIGNAL_PROCESS_GROUP`: ``pidfdSendSignal`` signals the process group that the pidfd's process leads or
    /// led (Linux ≥ 6.9; `EINVAL` before).
    static let pidfdSignalProcessGroup: UInt32 = 1 << 2

    /// glibc ≥ 2.5: copies from one pipe to another without consuming; with `SPLICE_F_NONBLOCK`, tells whether a FIFO
    /// has a writer without reading from it (see ``StreamFileOpener``).
    static let tee: Tee? = lookUp("tee")

    /// `SPLICE_F_NONBLOCK`.
    static let spliceNonBlocking: UInt32 = 2

    /// glibc ≥ 2.34: closes every descriptor from 3 up in the child, close-on-exec or not.
    static let addClosefrom: AddClosefrom? = lookUp("posix_spawn_file_actions_addclosefrom_np")

    /// glibc ≥ 2.29, macOS ≥ 10.15: the child's working directory.
    static let addChdir: AddChdir? = lookUp("posix_spawn_file_actions_addchdir_np")

    private static func lookUp<Function>(_ name: String) -> Function? {
        guard let symbol = dlsym(dlopen(nil, RTLD_NOW), name) else { return nil }
        return unsafeBitCast(symbol, to: Function.self)
    }

    /// A pipe whose two ends are close-on-exec (and non-blocking when `nonBlocking`), as `(read, write)`, or
    /// `errno`.
    static func makePipe(nonBlocking: Bool = false) -> Result<(read: Int32, write: Int32), SystemCallError> {
        var ends: [Int32] = [-1, -1]
        if let pipe2 {
            guard pipe2(&ends, O_CLOEXEC | (nonBlocking ? O_NONBLOCK : 0)) == 0 else { return .failure(currentErrno()) }
        } else {
            guard pipe(&ends) == 0 else { return .failure(currentErrno()) }
            for end in ends {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                if nonBlocking { setNonBlocking(end) }
            }
        }
        return .success((ends[0], ends[1]))
    }

    /// Makes `descriptor` non-blocking.
    static func setNonBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags | O_NONBLOCK) }
    }

    /// Makes `descriptor` blocking again.
    static func setBlocking(_ descriptor: Int32) {
        let flags = fcntl(descriptor, F_GETFL)
        if flags >= 0 { _ = fcntl(descriptor, F_SETFL, flags & ~O_NONBLOCK) }
    }

    /// Closes `descriptor`, retrying nothing (Linux releases the descriptor even when `close` is interrupted).
    static func close(_ descriptor: Int32) {
        if descriptor >= 0 {
            #if canImport(Glibc)
                _ = Glibc.close(descriptor)
            #elseif canImport(Musl)
                _ = Musl.close(descriptor)
            #elseif canImport(Darwin)
                _ = Darwin.close(descriptor)
            #endif
        }
    }

    /// The call that failed, with `errno`.
    static func currentErrno(_ call: String = "pipe") -> SystemCallError {
        SystemCallError(call: call, number: errno)
    }
}

/// A system call that failed, with its `errno`.
struct SystemCallError: Error, CustomStringConvertible {
    /// The call.
    let call: String
    /// Its `errno`.
    let number: Int32

    var description: String { "\(call): \(String(cString: strerror(number)))" }
}
