import Foundation
import PKCore
import PKProcess

#if canImport(Glibc)
    import Glibc
#endif

/// What `/proc` says of processes and descriptors, for checking that nothing was left behind.
enum ProcessInspection {

    /// A process's state letter (`R`, `S`, `Z`, …), process group and parent; `nil` when it does not exist.
    static func status(of pid: pid_t) -> (state: Character, group: pid_t, parent: pid_t)? {
        guard let stat = try? String(contentsOfFile: "/proc/\(pid)/stat", encoding: .utf8),
            let close = stat.lastIndex(of: ")")
        else { return nil }
        let fields = stat[stat.index(after: close)...].split(separator: " ")
        guard fields.count > 2, let state = fields[0].first, let parent = Int32(fields[1]),
            let group = Int32(fields[2])
        else { return nil }
        return (state, group, parent)
    }

    /// Whether `pid` is a live process (present and not a zombie).
    static func isAlive(_ pid: pid_t) -> Bool {
        guard let status = status(of: pid) else { return false }
        return status.state != "Z" && status.state != "X"
    }

    /// Whether a process of process group `group` is alive (present and not a zombie: an orphan's new parent, a
    /// container's first process, may never reap it).
    static func hasLiveMembers(processGroup group: pid_t) -> Bool {
        guard kill(-group, 0) == 0 || errno == EPERM else { return false }
        let entries = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return entries.contains { name in
            guard let pid = pid_t(name), let status = status(of: pid) else { return false }
            return status.group == group && status.state != "Z" && status.state != "X"
        }
    }

    /// Whether `pid` is a zombie child of this process (exited, never reaped).
    static func isOurZombie(_ pid: pid_t) -> Bool {
        guard let status = status(of: pid) else { return false }
        return status.state == "Z" && status.parent == getpid()
    }

    /// The targets of a process's open descriptors, by number (`pipe:[123]`, `/dev/null`, `anon_inode:[pidfd]`).
    static func descriptors(of pid: pid_t) -> [Int32: String] {
        let directory = "/proc/\(pid)/fd"
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return [:] }
        var targets: [Int32: String] = [:]
        for name in names {
            guard let number = Int32(name),
                let target = try? FileManager.default.destinationOfSymbolicLink(atPath: "\(directory)/\(name)")
            else { continue }
            targets[number] = target
        }
        return targets
    }

    /// This process's descriptors that are pidfds of `child`.
    static func pidfds(of child: pid_t) -> [Int32] {
        descriptors(of: getpid()).compactMap { number, target in
            guard target.contains("pidfd"),
                let info = try? String(contentsOfFile: "/proc/self/fdinfo/\(number)", encoding: .utf8),
                info.split(separator: "\n").contains("Pid:\t\(child)")
            else { return nil }
            return number
        }
    }

    /// The line of `/proc/<pid>/status` starting with `field:`, its value trimmed.
    static func statusField(_ field: String, of pid: pid_t) -> String? {
        guard let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8) else { return nil }
        for line in text.split(separator: "\n") where line.hasPrefix("\(field):") {
            return line.dropFirst(field.count + 1).trimmingCharacters(in: .whitespaces)
        }
        return nil
    }

    /// Whether a process here may grow a pipe to `bytes` (`F_SETPIPE_SZ`): up to `/proc/sys/fs/pipe-max-size`, or
    /// beyond with `CAP_SYS_RESOURCE` (which a container's root may lack).
    static func pipesCanGrow(to bytes: Int) -> Bool {
        let capabilities = UInt64(statusField("CapEff", of: getpid()) ?? "", radix: 16) ?? 0
        let sysResource: UInt64 = 1 << 24
        let maximum =
            (try? String(contentsOfFile: "/proc/sys/fs/pipe-max-size", encoding: .utf8))
            .flatMap { Int($0.trimmingCharacters(in: .whitespacesAndNewlines)) } ?? 0
        return capabilities & sysResource != 0 || maximum >= bytes
    }

    /// Waits (polling every 5 ms, up to `timeout`: generous, for a loaded machine) until `condition` holds; whether
    /// it did.
    static func eventually(timeout: Duration = .seconds(30), _ condition: () -> Bool) async -> Bool {
        let deadline = ContinuousClock.now + timeout
        while !condition() {
            if ContinuousClock.now >= deadline { return false }
            try? await Task.sleep(for: .milliseconds(5))
        }
        return true
    }
}

/// A temporary directory, removed when released.
final class TemporaryDirectory: Sendable {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("pkprocess-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// Writes an executable shell script named `name` with `body`, and returns its URL.
    func script(_ name: String, _ body: String, executable: Bool = true) throws -> URL {
        let file = url.appendingPathComponent(name)
        // Written through a descriptor that closes on exec: one inherited by a child another test spawns meanwhile
        // would keep the file open for writing, and its own exec would fail with ETXTBSY ("Text file busy").
        let descriptor = open(file.path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, executable ? 0o755 : 0o644)
        guard descriptor >= 0 else { throw CocoaError(.fileWriteUnknown) }
        let bytes = Array("#!/bin/sh\n\(body)\n".utf8)
        let written = bytes.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) }
        close(descriptor)
        guard written == bytes.count else { throw CocoaError(.fileWriteUnknown) }
        try FileManager.default.setAttributes(
            [.posixPermissions: executable ? 0o755 : 0o644], ofItemAtPath: file.path)
        return file
    }
}

extension ProcedureQueue {
    /// Runs `procedure` and returns its result as a `Result`, so that failures can be inspected.
    func outcome(of procedure: ProcessProcedure) async -> Result<ProcessProcedure.TerminationResult, any Error> {
        do { return .success(try await run(procedure)) } catch { return .failure(error) }
    }
}

extension Result where Failure == any Error {
    /// The failure as a ``ProcessProcedure/Error``, if it is one.
    var processError: ProcessProcedure.Error? {
        if case .failure(let error) = self { return error as? ProcessProcedure.Error }
        return nil
    }
}
