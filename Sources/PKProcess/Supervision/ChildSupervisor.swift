import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Launches one child and sees it through to the end, on a thread of its own: feeds its standard input, drains
/// its output pipes, notices its exit (a pidfd, or `waitid` polling where there is none) and the procedure's
/// cancellation (``WakePipe``), sends `SIGKILL` when the grace period after `SIGTERM` runs out, reaps it, ends
/// what it left behind in its process group, and reports.
///
/// One `poll` loop does all of it, so that nothing depends on which event comes first: a child that exits while a
/// grandchild keeps its pipe open is noticed by its pidfd, not by the pipe's end (the hang of
/// `Foundation.Process.waitUntilExit()` in swift-corelibs-foundation #4795).
struct ChildSupervisor: Sendable {
    let plan: LaunchPlan
    let lifecycle: ChildLifecycle
    let wake: WakePipe
    let gracePeriod: Duration
    let endsProcessGroup: Bool
    /// Writes a line of standard output (`false`) or error (`true`) to the procedure's log.
    let log: @Sendable (String, Bool) -> Void
    let didLaunch: @Sendable (pid_t) -> Void
    let didEnd: @Sendable (SupervisionOutcome) -> Void

    /// Starts the supervising thread; the system's error when no thread can be had.
    func start() -> SystemCallError? {
        SupervisorThread.start { run() }
    }

    private func run() {
        guard lifecycle.willLaunch(wake: wake, signalsGroup: plan.usesOwnProcessGroup) else {
            wake.close()
            didEnd(.notLaunched)
            return
        }
        let pid: pid_t
        let ends: ParentEnds
        do {
            (pid, ends) = try Spawner.spawn(plan)
        } catch {
            lifecycle.launchFailed()
            wake.close()
            didEnd(.launchFailed(error))
            return
        }
        let pidfd = SystemCalls.pidfdOpen?(pid, 0) ?? -1
        lifecycle.didLaunch(pid: pid)
        didLaunch(pid)

        // A write to a child's standard input that it closed raises SIGPIPE: blocked on this thread while it serves
        // the pipes, it stays pending and is taken after the write fails with EPIPE, so that this process is not
        // killed. The mask is restored before the procedure finishes here (this thread is reused). PERF(W21): only
        // when there is input to write.
        let writesInput = ends.input >= 0
        var previousMask = sigset_t()
        if writesInput {
            var pipeSignal = sigset_t()
            sigemptyset(&pipeSignal)
            sigaddset(&pipeSignal, SIGPIPE)
            pthread_sigmask(SIG_BLOCK, &pipeSignal, &previousMask)
        }

        var loop = Loop(supervisor: self, pid: pid, pidfd: pidfd, ends: ends)
        loop.runUntilExit()
        let cancelled = lifecycle.willReap()
        let status = Self.reap(pid)
        SystemCalls.close(pidfd)
        wake.close()
        loop.drainAfterExit()
        if writesInput {
            Loop.consumePendingPipeSignal()
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }

        if plan.usesOwnProcessGroup && (cancelled || endsProcessGroup) {
            ProcessGroup.end(
                pid, alreadySignalled: cancelled, deadline: loop.killDeadline ?? .now + gracePeriod)
        }
        switch status {
        case .success(let (statusCode, reason)):
            didEnd(
                .terminated(
                    status: statusCode, reason: reason, output: loop.output.collected, error: loop.error.collected))
        case .failure(let error):
            didEnd(.statusUnavailable(errno: error.number))
        }
    }

    /// Reaps `pid` (already exited), returning ProcedureKit's status and reason; fails when it was reaped by
    /// someone else (`SIGCHLD` ignored, or another library's `waitpid(-1)`).
    private static func reap(_ pid: pid_t) -> Result<(Int32, Process.TerminationReason), SystemCallError> {
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0 {
            guard errno == EINTR else { return .failure(SystemCalls.currentErrno("waitpid")) }
        }
        let signal = status & 0x7f
        return .success(signal == 0 ? ((status >> 8) & 0xff, .exit) : (signal, .uncaughtSignal))
    }

    /// The loop's state, confined to the supervising thread.
    private struct Loop {
        let supervisor: ChildSupervisor
        let pid: pid_t
        let pidfd: Int32
        var ends: ParentEnds
        var output: Stream
        var error: Stream
        var input: Data
        var inputOffset = 0
        /// When `SIGKILL` is due: the grace period after the cancellation was noticed.
        var killDeadline: ContinuousClock.Instant?
        var killed = false
        /// The read buffer, made when a pipe is first read (PERF(W21): most children write through no pipe).
        var buffer: [UInt8] = []

        init(supervisor: ChildSupervisor, pid: pid_t, pidfd: Int32, ends: ParentEnds) {
            self.supervisor = supervisor
            self.pid = pid
            self.pidfd = pidfd
            self.ends = ends
            output = Stream(destination: supervisor.plan.output, isStandardError: false, log: supervisor.log)
            error = Stream(destination: supervisor.plan.error, isStandardError: true, log: supervisor.log)
            if case .data(let data) = supervisor.plan.input.kind { input = data } else { input = Data() }
            if ends.input >= 0, input.isEmpty { closeInput() }
        }

        /// Polls until the child has exited (it is then a zombie, not yet reaped).
        mutating func runUntilExit() {
            while true {
                noticeCancellation()
                var descriptors = [pollfd(fd: supervisor.wake.readEnd, events: Int16(POLLIN), revents: 0)]
                if pidfd >= 0 { descriptors.append(pollfd(fd: pidfd, events: Int16(POLLIN), revents: 0)) }
                if ends.output >= 0 { descriptors.append(pollfd(fd: ends.output, events: Int16(POLLIN), revents: 0)) }
                if ends.error >= 0 { descriptors.append(pollfd(fd: ends.error, events: Int16(POLLIN), revents: 0)) }
                if ends.input >= 0 { descriptors.append(pollfd(fd: ends.input, events: Int16(POLLOUT), revents: 0)) }
                let ready = poll(&descriptors, nfds_t(descriptors.count), timeout())
                // ENOMEM is the only failure possible with these arguments: try again shortly.
                if ready < 0, errno != EINTR { _ = poll(nil, 0, 1) }
                var pidfdReady = false
                for descriptor in descriptors where descriptor.revents != 0 {
                    switch descriptor.fd {
                    case pidfd: pidfdReady = true
                    case supervisor.wake.readEnd: supervisor.wake.drain()
                    case ends.output: readAvailable(from: \.output, descriptor: \.output, reads: 16)
                    case ends.error: readAvailable(from: \.error, descriptor: \.error, reads: 16)
                    case ends.input: writeInput()
                    default: break
                    }
                }
                if pidfd >= 0 ? pidfdReady : hasExitedWithoutPidfd() { return }
                if let killDeadline, !killed, ContinuousClock.now >= killDeadline {
                    _ = kill(supervisor.plan.usesOwnProcessGroup ? -pid : pid, SIGKILL)
                    killed = true
                }
            }
        }

        /// Starts the grace period once the procedure was cancelled.
        private mutating func noticeCancellation() {
            if killDeadline == nil, supervisor.lifecycle.isTerminating {
                killDeadline = .now + supervisor.gracePeriod
            }
        }

        /// `poll`'s timeout in milliseconds: until `SIGKILL` is due, and at most 5 ms without a pidfd.
        private func timeout() -> Int32 {
            var milliseconds = pidfd >= 0 ? Int64.max : 5
            if let killDeadline, !killed {
                let left = ContinuousClock.now.duration(to: killDeadline)
                // At most a day per poll (the deadline is checked again after each), which also keeps this in range.
                let seconds = min(max(left.components.seconds, 0), 86_400)
                let leftMilliseconds = seconds * 1000 + left.components.attoseconds / 1_000_000_000_000_000 + 1
                milliseconds = min(milliseconds, max(0, leftMilliseconds))
            }
            return milliseconds == Int64.max ? -1 : Int32(clamping: milliseconds)
        }

        /// Whether the child has exited (it is then a zombie, left for ``ChildSupervisor/reap(_:)``), asked with
        /// `waitid(WNOWAIT)` where there is no pidfd.
        private func hasExitedWithoutPidfd() -> Bool {
            var information = siginfo_t()
            guard waitid(P_PID, id_t(pid), &information, WEXITED | WNOHANG | WNOWAIT) == 0 else {
                return errno == ECHILD
            }
            #if canImport(Darwin)
                return information.si_pid != 0
            #else
                return information._sifields._sigchld.si_pid != 0
            #endif
        }

        /// Reads what `descriptor` has now, in at most `reads` reads (so that a child writing without pause does
        /// not keep the loop from its other descriptors); closes it at its end.
        private mutating func readAvailable(
            from stream: WritableKeyPath<Loop, Stream>, descriptor: WritableKeyPath<ParentEnds, Int32>,
            reads: Int = .max
        ) {
            let fd = ends[keyPath: descriptor]
            if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 64 * 1024) }
            var reads = reads
            while reads > 0 {
                reads -= 1
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, $0.count) }
                if count > 0 {
                    buffer.withUnsafeBufferPointer {
                        self[keyPath: stream].collector?.consume(UnsafeBufferPointer(rebasing: $0[..<count]))
                    }
                    continue
                }
                if count < 0, errno == EINTR { continue }
                if count < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
                // End of file, or an error that ends the stream all the same.
                self[keyPath: stream].collector?.finish()
                SystemCalls.close(fd)
                ends[keyPath: descriptor] = -1
                return
            }
        }

        /// Writes what the child's standard input pipe takes now; closes it when all is written or the child
        /// closed its end.
        private mutating func writeInput() {
            while inputOffset < input.count {
                let written = input.withUnsafeBytes { bytes in
                    write(ends.input, bytes.baseAddress! + inputOffset, min(bytes.count - inputOffset, 64 * 1024))
                }
                if written > 0 {
                    inputOffset += written
                    continue
                }
                if written < 0, errno == EINTR { continue }
                if written < 0, errno == EAGAIN || errno == EWOULDBLOCK { return }
                if written < 0, errno == EPIPE { Loop.consumePendingPipeSignal() }
                break
            }
            closeInput()
        }

        private mutating func closeInput() {
            SystemCalls.close(ends.input)
            ends.input = -1
            input = Data()
        }

        /// Takes the SIGPIPE a failed write left pending on this thread.
        static func consumePendingPipeSignal() {
            #if canImport(Darwin)
                // Darwin has no sigtimedwait: the signal is discarded with the thread.
            #else
                var pipeSignal = sigset_t()
                sigemptyset(&pipeSignal)
                sigaddset(&pipeSignal, SIGPIPE)
                var noWait = timespec(tv_sec: 0, tv_nsec: 0)
                _ = sigtimedwait(&pipeSignal, nil, &noWait)
            #endif
        }

        /// After the exit: closes standard input, reads what the output pipes hold (not waiting for processes left
        /// behind that still hold them), and closes them.
        ///
        /// What the child wrote before it exited is in the pipe, which holds 1 MiB at most (Linux's limit for an
        /// unprivileged process; 64 KiB by default), so 16 reads of 64 KiB take it all, while a process left behind
        /// that keeps writing cannot hold the supervisor here: it is ended with the group afterwards.
        mutating func drainAfterExit() {
            if ends.input >= 0 { closeInput() }
            for (stream, descriptor) in [(\Loop.output, \ParentEnds.output), (\Loop.error, \ParentEnds.error)] {
                guard ends[keyPath: descriptor] >= 0 else { continue }
                readAvailable(from: stream, descriptor: descriptor, reads: 16)
                if ends[keyPath: descriptor] >= 0 {
                    self[keyPath: stream].collector?.finish()
                    SystemCalls.close(ends[keyPath: descriptor])
                    ends[keyPath: descriptor] = -1
                }
            }
        }
    }

    /// One output stream's collector, when it is read through a pipe.
    private struct Stream {
        var collector: OutputCollector?

        init(
            destination: ProcessOutputDestination, isStandardError: Bool,
            log: @escaping @Sendable (String, Bool) -> Void
        ) {
            if case .read(let reading) = destination.kind {
                collector = OutputCollector(reading: reading, isStandardError: isStandardError) {
                    log($0, isStandardError)
                }
            }
        }

        var collected: CollectedOutput {
            CollectedOutput(
                data: collector?.captured ?? Data(), droppedBytes: collector?.droppedBytes ?? 0,
                captureLimit: collector?.captureLimit, standardErrorTail: collector?.standardErrorTail)
        }
    }
}
