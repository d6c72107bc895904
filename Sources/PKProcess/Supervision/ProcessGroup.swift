import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child's process group (the child's pid is the group's id) once the child has exited: whether anything in it
/// still runs, and ending it.
///
/// Nothing in this module signals a pid that may have been given to another process since, so a group is named in
/// one of two ways (``ChildSupervisor`` chooses):
/// - through the child's pidfd (`pidfd_send_signal` with `PIDFD_SIGNAL_PROCESS_GROUP`, Linux ≥ 6.9), which names
///   the kernel's record of the group rather than its number: exact whether or not the child has been reaped, and an
///   empty group is told by one system call;
/// - by its number, only while the child is an unreaped zombie: the zombie keeps the number from being reused, so
///   the supervisor ends the group before it reaps.
struct ProcessGroup {
    /// The group's id: the child's pid.
    let id: pid_t
    /// The child's pidfd, when the group is signalled through it; `-1` when it is named by its number.
    let pidfd: Int32

    /// The group of the child whose pidfd is `pidfd`, signalled through it.
    static func throughPidfd(_ pidfd: Int32, id: pid_t) -> ProcessGroup { ProcessGroup(id: id, pidfd: pidfd) }

    /// The group `id`, named by its number: only while its leader is unreaped.
    static func pinnedByItsLeader(_ id: pid_t) -> ProcessGroup { ProcessGroup(id: id, pidfd: -1) }

    /// Whether this kernel signals a process group through `pidfd` (it refuses the flag with `EINVAL` before Linux
    /// 6.9). An empty group (`ESRCH`: the child was reaped elsewhere, and left nothing) is signalled through it too.
    static func canSignalThroughPidfd(_ pidfd: Int32) -> Bool {
        guard pidfd >= 0, let send = SystemCalls.pidfdSendSignal else { return false }
        return send(pidfd, 0, nil, SystemCalls.pidfdSignalProcessGroup) == 0 || errno == ESRCH || errno == EPERM
    }

    /// Whether `pid`, a child of this process, has exited and is not reaped yet: then it keeps its id, and the id of
    /// the group it leads, from being given to another process.
    static func isUnreapedZombie(_ pid: pid_t) -> Bool {
        var information = siginfo_t()
        guard waitid(P_PID, id_t(pid), &information, WEXITED | WNOHANG | WNOWAIT) == 0 else { return false }
        #if canImport(Darwin)
            return information.si_pid == pid
        #else
            return information._sifields._sigchld.si_pid == pid
        #endif
    }

    /// Sends `signal` to every process of the group; whether one was found.
    @discardableResult
    func signal(_ signal: Int32) -> Bool {
        if pidfd >= 0, let send = SystemCalls.pidfdSendSignal {
            return send(pidfd, signal, nil, SystemCalls.pidfdSignalProcessGroup) == 0 || errno == EPERM
        }
        return kill(-id, signal) == 0 || errno == EPERM
    }

    /// Whether a process of the group is alive (not a zombie). A signal 0 answers for the group but counts zombies
    /// (the unreaped leader, and members whose new parent has not reaped them yet); on Linux the members found are
    /// then checked in `/proc`. PERF(W21): a group emptied with its leader costs one system call.
    var hasLiveMembers: Bool {
        guard signal(0) else { return false }
        #if os(Linux)
            // Members found keep the id from being reused while they exist, so `/proc` is read by the id.
            return Self.liveMembersInProc(id)
        #else
            return true
        #endif
    }

    /// Sends `SIGTERM` to the group unless `alreadySignalled`, waits until no live process is left in it or
    /// `deadline` passes, then sends `SIGKILL` and waits (a second at most) for the killed to be gone. Blocks: the
    /// supervising thread only.
    func end(alreadySignalled: Bool, deadline: ContinuousClock.Instant) {
        guard hasLiveMembers else { return }
        if !alreadySignalled {
            signal(SIGTERM)
            signal(SIGCONT)
        }
        guard !waitUntilEmpty(deadline: deadline) else { return }
        signal(SIGKILL)
        _ = waitUntilEmpty(deadline: .now + .seconds(1))
    }

    /// Whether the group emptied before `deadline`; checks at growing intervals (1 ms to 20 ms).
    private func waitUntilEmpty(deadline: ContinuousClock.Instant) -> Bool {
        var pause = 1
        while hasLiveMembers {
            if ContinuousClock.now >= deadline { return false }
            _ = poll(nil, 0, Int32(pause))
            pause = min(pause * 2, 20)
        }
        return true
    }

    #if os(Linux)
        /// Whether `/proc` lists a process of group `id` that is not a zombie.
        private static func liveMembersInProc(_ id: pid_t) -> Bool {
            guard let directory = opendir("/proc") else { return true }
            defer { closedir(directory) }
            while let entry = readdir(directory) {
                let name = withUnsafeBytes(of: entry.pointee.d_name) { raw in
                    String(decoding: raw.prefix { $0 != 0 }, as: UTF8.self)
                }
                // PERF(W21): `getpgid` picks the members out without reading every process's `stat`.
                guard let pid = Int32(name), getpgid(pid) == id,
                    let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8)
                else { continue }
                // pid (comm) state ppid pgrp …, where comm may hold spaces and parentheses.
                guard let close = stat.lastIndex(of: ")") else { continue }
                let fields = stat[stat.index(after: close)...].split(separator: " ")
                guard fields.count > 2, Int32(fields[2]) == id else { continue }
                if fields[0] != "Z" && fields[0] != "X" { return true }
            }
            return false
        }
    #endif
}
