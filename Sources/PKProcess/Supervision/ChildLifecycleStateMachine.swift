#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The life of one ``ProcessProcedure``'s child, from before it is launched to after it is reaped, as swift-nio
/// writes state machines: no locks, no clocks, no callbacks; each event returns what to do. ``ChildLifecycle``
/// owns it.
///
/// ```
/// notLaunched ─willLaunch─▶ launching ─didLaunch─▶ running ─willReap─▶ reaped
///      │cancel                 │launchFailed          │cancel: terminating = true
///      ▼                       ▼                      │suspend / resume: suspensions ± 1
/// cancelledBeforeLaunch      reaped
/// ```
///
/// A cancel while launching marks the launch cancelled and wakes the supervisor, which may be waiting for a FIFO's
/// other end (``StreamFileOpener``) and then gives the launch up.
struct ChildLifecycleStateMachine {

    enum State: Equatable {
        /// `execute()` has not begun launching.
        case notLaunched
        /// Cancelled before launching began: nothing will be launched.
        case cancelledBeforeLaunch
        /// `posix_spawn` is under way on the supervising thread; `cancelled` if a cancel came meanwhile.
        case launching(cancelled: Bool)
        /// The child runs (or has exited and awaits reaping). `terminating` once it was cancelled;
        /// `suspensions` counts unbalanced `suspend`s.
        case running(pid: pid_t, suspensions: Int, terminating: Bool)
        /// The child was reaped, or never launched: its pid may belong to another process now.
        case reaped
    }

    /// Signals to send, to the child's process group (its pid), with the supervisor woken when it must notice.
    enum Action: Equatable {
        case none
        /// Cancelled while launching: wake the supervisor, which may be waiting for a FIFO's other end, so that it
        /// gives the launch up.
        case wake
        /// Cancelled: `SIGTERM` to the group, then `SIGCONT` (a stopped process, suspended by us or stopped by
        /// the terminal, would not act on `SIGTERM`), and wake the supervisor to start the grace period.
        case terminate(pid: pid_t)
        /// `SIGSTOP` to the group.
        case stop(pid: pid_t)
        /// `SIGCONT` to the group.
        case `continue`(pid: pid_t)
    }

    private(set) var state: State = .notLaunched

    /// The supervising thread is about to spawn; `false` when it was cancelled first and must not.
    mutating func willLaunch() -> Bool {
        switch state {
        case .notLaunched:
            state = .launching(cancelled: false)
            return true
        case .cancelledBeforeLaunch:
            state = .reaped
            return false
        case .launching, .running, .reaped:
            preconditionFailure("willLaunch in \(state)")
        }
    }

    /// The child `pid` was spawned (as the leader of its own process group).
    mutating func didLaunch(pid: pid_t) -> Action {
        switch state {
        case .launching(let cancelled):
            state = .running(pid: pid, suspensions: 0, terminating: cancelled)
            return cancelled ? .terminate(pid: pid) : .none
        case .notLaunched, .cancelledBeforeLaunch, .running, .reaped:
            preconditionFailure("didLaunch in \(state)")
        }
    }

    /// `posix_spawn` failed, or the launch was given up after a cancel; returns whether it had been cancelled.
    mutating func launchFailed() -> Bool {
        switch state {
        case .launching(let cancelled):
            state = .reaped
            return cancelled
        case .notLaunched, .cancelledBeforeLaunch, .running, .reaped:
            preconditionFailure("launchFailed in \(state)")
        }
    }

    /// The procedure was cancelled.
    mutating func cancel() -> Action {
        switch state {
        case .notLaunched:
            state = .cancelledBeforeLaunch
            return .none
        case .launching(let cancelled):
            state = .launching(cancelled: true)
            return cancelled ? .none : .wake
        case .running(let pid, let suspensions, let terminating):
            guard !terminating else { return .none }
            state = .running(pid: pid, suspensions: suspensions, terminating: true)
            return .terminate(pid: pid)
        case .cancelledBeforeLaunch, .reaped:
            return .none
        }
    }

    /// `suspend()`: whether the child was running (and so is now suspended once more).
    mutating func suspend() -> (accepted: Bool, action: Action) {
        switch state {
        case .running(let pid, let suspensions, false):
            state = .running(pid: pid, suspensions: suspensions + 1, terminating: false)
            return (true, suspensions == 0 ? .stop(pid: pid) : .none)
        case .notLaunched, .cancelledBeforeLaunch, .launching, .running, .reaped:
            return (false, .none)
        }
    }

    /// `resume()`: whether the child was suspended (and so is now suspended once less).
    mutating func resume() -> (accepted: Bool, action: Action) {
        switch state {
        case .running(let pid, let suspensions, false) where suspensions > 0:
            state = .running(pid: pid, suspensions: suspensions - 1, terminating: false)
            return (true, suspensions == 1 ? .continue(pid: pid) : .none)
        case .notLaunched, .cancelledBeforeLaunch, .launching, .running, .reaped:
            return (false, .none)
        }
    }

    /// The child has exited and is about to be reaped: from now on its pid must not be signalled. Returns whether
    /// it had been cancelled (and so its group sent `SIGTERM`).
    mutating func willReap() -> Bool {
        switch state {
        case .running(_, _, let terminating):
            state = .reaped
            return terminating
        case .notLaunched, .cancelledBeforeLaunch, .launching, .reaped:
            preconditionFailure("willReap in \(state)")
        }
    }

    /// The pid to signal directly (ProcedureKit's internal `process.terminate()`), while the child is unreaped.
    var signallablePID: pid_t? {
        if case .running(let pid, _, _) = state { return pid }
        return nil
    }

    /// Whether the child was cancelled (whether or not it was launched).
    var isTerminating: Bool {
        switch state {
        case .running(_, _, let terminating): terminating
        case .launching(let cancelled): cancelled
        case .cancelledBeforeLaunch: true
        case .notLaunched, .reaped: false
        }
    }
}
