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
/// cancellation (``WakePipe``), sends `SIGKILL` when the grace period after `SIGTERM` runs out, reads what it left
/// in its pipes, ends what it left behind in its process group, reaps it, and reports.
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
    /// FAKE for tests: ends the group by its id before reaping even where the kernel could signal it through the
    /// pidfd, as on a kernel older than Linux 6.9 (which cannot be had here).
    var namesGroupsByNumber = false
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
            (pid, ends) = try Spawner.spawn(
                plan, opener: StreamFileOpener(lifecycle: lifecycle, wake: wake), owner: lifecycle)
        } catch {
            let cancelled = lifecycle.launchFailed()
            wake.close()
            didEnd(cancelled ? .notLaunched : .launchFailed(error))
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
        // The child is a zombie now: what it wrote is all in its pipes, and its pid cannot be given to another
        // process until it is reaped here.
        let cancelled = lifecycle.willReap()
        wake.close()
        loop.drainAfterExit()
        if writesInput {
            Loop.consumePendingPipeSignal()
            pthread_sigmask(SIG_SETMASK, &previousMask, nil)
        }
        let status = endGroupAndReap(pid, pidfd: pidfd, cancelled: cancelled, killDeadline: loop.killDeadline)
        SystemCalls.close(pidfd)

        switch status {
        case .success(let (statusCode, reason)):
            didEnd(
                .terminated(
                    status: statusCode, reason: reason, output: loop.output.collected, error: loop.error.collected))
        case .failure(let error):
            didEnd(.statusUnavailable(errno: error.number))
        }
    }

    /// Ends what the exited child `pid` left in its process group, when it was cancelled or
    /// ``endsProcessGroup``, and reaps it, never signalling a group whose id may name another since:
    /// - where the kernel signals a group through a pidfd (Linux ≥ 6.9), the child is reaped first and the group
    ///   ended through `pidfd` (PERF(W21): a group that emptied with its leader costs one system call);
    /// - otherwise the group is ended by its id while the unreaped child keeps that id from being reused (looking
    ///   through `/proc` for its live members), then the child is reaped. A child reaped by someone else (`SIGCHLD`
    ///   ignored, another library's `waitpid(-1)`) pins nothing, and its group is then left alone: another reaper
    ///   that takes the child between that check and a signal is the one window this cannot close.
    private func endGroupAndReap(
        _ pid: pid_t, pidfd: Int32, cancelled: Bool, killDeadline: ContinuousClock.Instant?
    ) -> Result<(Int32, Process.TerminationReason), SystemCallError> {
        guard plan.usesOwnProcessGroup && (cancelled || endsProcessGroup) else { return Self.reap(pid) }
        let deadline = killDeadline ?? .now + gracePeriod
        if !namesGroupsByNumber, ProcessGroup.canSignalThroughPidfd(pidfd) {
            let status = Self.reap(pid)
            ProcessGroup.throughPidfd(pidfd, id: pid).end(alreadySignalled: cancelled, deadline: deadline)
            return status
        }
        if ProcessGroup.isUnreapedZombie(pid) {
            ProcessGroup.pinnedByItsLeader(pid).end(alreadySignalled: cancelled, deadline: deadline)
        }
        return Self.reap(pid)
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

        /// Reads what `descriptor` has now, in at most `reads` reads and `upTo` bytes (so that a child writing
        /// without pause does not keep the loop from its other descriptors); closes it at its end.
        private mutating func readAvailable(
            from stream: WritableKeyPath<Loop, Stream>, descriptor: WritableKeyPath<ParentEnds, Int32>,
            reads: Int = .max, upTo limit: Int = .max
        ) {
            let fd = ends[keyPath: descriptor]
            if buffer.isEmpty { buffer = [UInt8](repeating: 0, count: 64 * 1024) }
            var reads = reads
            var left = limit
            while reads > 0, left > 0 {
                reads -= 1
                let count = buffer.withUnsafeMutableBytes { read(fd, $0.baseAddress, min($0.count, left)) }
                if count > 0 {
                    left -= count
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

        /// After the exit: closes standard input, reads everything the child wrote to the output pipes, and closes
        /// them.
        ///
        /// The child has exited, so all it wrote is in the pipe, and a pipe holds at most its capacity: 64 KiB by
        /// default, up to `/proc/sys/fs/pipe-max-size` (1 MiB by default) for a child that grew it with
        /// `F_SETPIPE_SZ`, and more for a privileged one. Each pipe is read until it is empty (or at its end), and at
        /// most its capacity (`F_GETPIPE_SZ`, asked now) is read: whatever comes after that, and whatever arrives
        /// once the pipe was found empty, was written after the exit by processes the child left behind, which are
        /// not waited for (they may hold the pipe open for ever, and one that keeps writing must not hold the
        /// supervisor here); they are ended with the group afterwards.
        mutating func drainAfterExit() {
            if ends.input >= 0 { closeInput() }
            for (stream, descriptor) in [(\Loop.output, \ParentEnds.output), (\Loop.error, \ParentEnds.error)] {
                let fd = ends[keyPath: descriptor]
                guard fd >= 0 else { continue }
                readAvailable(from: stream, descriptor: descriptor, upTo: Self.capacity(ofPipe: fd))
                if ends[keyPath: descriptor] >= 0 {
                    self[keyPath: stream].collector?.finish()
                    SystemCalls.close(ends[keyPath: descriptor])
                    ends[keyPath: descriptor] = -1
                }
            }
        }

        /// The bytes a pipe holds at most, from `F_GETPIPE_SZ` (Linux), else the largest capacity Linux allows an
        /// unprivileged process.
        private static func capacity(ofPipe descriptor: Int32) -> Int {
            #if os(Linux)
                // F_GETPIPE_SZ (1032): Glibc's module does not import it (it needs _GNU_SOURCE).
                let size = fcntl(descriptor, 1032)
                if size > 0 { return Int(size) }
            #endif
            return 1 << 20
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
