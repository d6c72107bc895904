import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The lock around a child's ``ChildLifecycleStateMachine``, shared by the procedure (cancel, suspend, resume,
/// ProcedureKit's `process.terminate()`) and the supervising thread (launch, reap).
///
/// Unlike the house rule, the machine's actions are carried out *inside* the lock: they are `kill` calls and a
/// one-byte non-blocking write, which never block and never call user code, and only under the lock is a pid
/// known not to have been reaped (and reused by another process) in between. The supervisor takes the same lock
/// (``willReap()``) before it reaps. No other lock is taken while holding it.
final class ChildLifecycle: Sendable {

    private struct Locked {
        var machine = ChildLifecycleStateMachine()
        /// The supervisor's wake-up pipe, from launch until the child is reaped.
        var wake: WakePipe?
        /// Whether signals go to the child's process group (`kill(-pid)`) or to the child alone.
        var signalsGroup = true
    }

    private let locked = PKMutex(Locked())

    init() {}

    /// The supervisor is about to spawn, and will watch `wake`; signals will go to the child's process group when
    /// `signalsGroup`. `false` when it was cancelled first.
    func willLaunch(wake: WakePipe, signalsGroup: Bool) -> Bool {
        locked.withLock { locked in
            guard locked.machine.willLaunch() else { return false }
            locked.wake = wake
            locked.signalsGroup = signalsGroup
            return true
        }
    }

    func didLaunch(pid: pid_t) {
        locked.withLock { perform($0.machine.didLaunch(pid: pid), $0) }
    }

    /// The launch failed, or was given up because the procedure was cancelled while it waited (for a FIFO's other
    /// end): returns whether it had been cancelled.
    func launchFailed() -> Bool {
        locked.withLock { locked in
            locked.wake = nil
            return locked.machine.launchFailed()
        }
    }

    func cancel() {
        locked.withLock { perform($0.machine.cancel(), $0) }
    }

    func suspend() -> Bool {
        locked.withLock { locked in
            let (accepted, action) = locked.machine.suspend()
            perform(action, locked)
            return accepted
        }
    }

    func resume() -> Bool {
        locked.withLock { locked in
            let (accepted, action) = locked.machine.resume()
            perform(action, locked)
            return accepted
        }
    }

    /// The child has exited (a zombie, not yet reaped); after this nothing here signals its pid or writes to the
    /// wake-up pipe, which the supervisor may close. The supervisor alone then ends the child's group, if need be,
    /// and reaps it. Returns whether it had been cancelled.
    func willReap() -> Bool {
        locked.withLock { locked in
            locked.wake = nil
            return locked.machine.willReap()
        }
    }

    var isTerminating: Bool { locked.withLock { $0.machine.isTerminating } }

    /// Sends `signal` to the child alone (not its group), if it is not reaped; whether it was sent.
    @discardableResult
    func signalChild(_ signal: Int32) -> Bool {
        locked.withLock { locked in
            guard let pid = locked.machine.signallablePID else { return false }
            return kill(pid, signal) == 0
        }
    }

    private func perform(_ action: ChildLifecycleStateMachine.Action, _ locked: Locked) {
        let signalsGroup = locked.signalsGroup
        switch action {
        case .none:
            break
        case .wake:
            locked.wake?.signal()
        case .terminate(let pid):
            // SIGCONT too, whether we suspended it or not: a child stopped by the terminal (SIGTTIN) or a debugger
            // acts on SIGTERM only once continued.
            _ = kill(signalsGroup ? -pid : pid, SIGTERM)
            _ = kill(signalsGroup ? -pid : pid, SIGCONT)
            locked.wake?.signal()
        case .stop(let pid):
            _ = kill(signalsGroup ? -pid : pid, SIGSTOP)
        case .continue(let pid):
            _ = kill(signalsGroup ? -pid : pid, SIGCONT)
        }
    }
}

/// A pipe whose write end wakes the supervising thread out of `poll`. Both ends are non-blocking and
/// close-on-exec, and are closed by the supervisor when it is done (``ChildLifecycle`` writes only between
/// `willLaunch` and `willReap`, under its lock, so never to a closed descriptor).
final class WakePipe: Sendable {
    let readEnd: Int32
    let writeEnd: Int32

    init() throws(SystemCallError) {
        switch SystemCalls.makePipe(nonBlocking: true) {
        case .success(let ends):
            readEnd = ends.read
            writeEnd = ends.write
        case .failure(let error):
            throw error
        }
    }

    /// Wakes the reader (a full pipe already will).
    func signal() {
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }

    /// Empties the pipe.
    func drain() {
        var bytes = [UInt8](repeating: 0, count: 64)
        while read(readEnd, &bytes, bytes.count) > 0 {}
    }

    /// Closes both ends.
    func close() {
        SystemCalls.close(readEnd)
        SystemCalls.close(writeEnd)
    }
}
