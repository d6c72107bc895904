import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A child's process group (its pid is the group's id): whether anything in it still runs, and ending it.
enum ProcessGroup {

    /// Whether a process of group `id` is alive (not a zombie). `kill(-id, 0)` answers for the group but counts
    /// zombies, which stay until their new parent reaps them; on Linux the members found are then checked in
    /// `/proc`.
    static func hasLiveMembers(_ id: pid_t) -> Bool {
        guard kill(-id, 0) == 0 || errno == EPERM else { return false }
        #if os(Linux)
            return liveMembersInProc(id)
        #else
            return true
        #endif
    }

    /// Sends `SIGTERM` to group `id` unless `alreadySignalled`, waits until no live process is left in it or
    /// `deadline` passes, then sends `SIGKILL` and waits (a second at most) for the killed to be gone. Blocks:
    /// the supervising thread only.
    static func end(_ id: pid_t, alreadySignalled: Bool, deadline: ContinuousClock.Instant) {
        guard hasLiveMembers(id) else { return }
        if !alreadySignalled {
            _ = kill(-id, SIGTERM)
            _ = kill(-id, SIGCONT)
        }
        guard !waitUntilEmpty(id, deadline: deadline) else { return }
        _ = kill(-id, SIGKILL)
        _ = waitUntilEmpty(id, deadline: .now + .seconds(1))
    }

    /// Whether group `id` emptied before `deadline`; checks at growing intervals (1 ms to 20 ms).
    private static func waitUntilEmpty(_ id: pid_t, deadline: ContinuousClock.Instant) -> Bool {
        var pause = 1
        while hasLiveMembers(id) {
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
                guard let pid = Int32(name),
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
