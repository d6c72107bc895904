import Foundation
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program run as a child process, its standard output and error collected (merged) by a thread of its own: for
/// the package's own tests of its example executables and scripts (PKObserversTests, PKPostgresTests), hence
/// `package`, not `public`.
///
/// Spawned with `posix_spawn`, with an empty signal mask and default dispositions for the signals the tests send,
/// whatever this test process's threads have blocked or ignored, so the child starts as a fresh service would.
/// Its standard input is `/dev/null`. Every method blocks: call them off the cooperative pool.
package final class ChildProcess: Sendable {

    /// How the child ended.
    package enum Termination: Sendable, Equatable, CustomStringConvertible {
        case exited(Int32)
        case signalled(Int32)

        package var description: String {
            switch self {
            case .exited(let status): "exited with status \(status)"
            case .signalled(let signal): "killed by signal \(signal)"
            }
        }
    }

    package let pid: pid_t
    private let collected = PKMutex("")
    private let readerFinished = DispatchSemaphore(value: 0)

    /// A system call that failed while starting the child.
    package struct LaunchFailure: Error, CustomStringConvertible {
        /// The call.
        package let operation: String
        /// Its `errno`.
        package let errorNumber: Int32
        package var description: String { "\(operation) failed: \(String(cString: strerror(errorNumber)))" }
    }

    /// Starts `executable` with `arguments`, in `environment` (by default this process's, without
    /// `NOTIFY_SOCKET`).
    package init(executable: String, arguments: [String], environment: [String: String]? = nil) throws {
        var environment = environment ?? ProcessInfo.processInfo.environment
        if environment["NOTIFY_SOCKET"] == ProcessInfo.processInfo.environment["NOTIFY_SOCKET"] {
            environment["NOTIFY_SOCKET"] = nil
        }

        // Close-on-exec, so that other children spawned meanwhile do not keep the pipe open (Glibc's module has
        // no pipe2; a child spawned between these two calls would only delay the end of this output).
        var pipeEnds: [Int32] = [-1, -1]
        guard pipe(&pipeEnds) == 0 else { throw LaunchFailure(operation: "pipe", errorNumber: errno) }
        for end in pipeEnds { _ = fcntl(end, F_SETFD, FD_CLOEXEC) }
        let (readEnd, writeEnd) = (pipeEnds[0], pipeEnds[1])

        #if canImport(Darwin)
            var actions: posix_spawn_file_actions_t? = nil
            var attributes: posix_spawnattr_t? = nil
        #else
            var actions = posix_spawn_file_actions_t()
            var attributes = posix_spawnattr_t()
        #endif
        posix_spawn_file_actions_init(&actions)
        posix_spawnattr_init(&attributes)
        defer {
            posix_spawn_file_actions_destroy(&actions)
            posix_spawnattr_destroy(&attributes)
        }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 1)
        posix_spawn_file_actions_adddup2(&actions, writeEnd, 2)
        var noSignals = sigset_t()
        sigemptyset(&noSignals)
        posix_spawnattr_setsigmask(&attributes, &noSignals)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGUSR1, SIGUSR2, SIGPIPE] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))

        let argv = ([executable] + arguments).map { strdup($0) } + [nil]
        let envp = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            for pointer in argv { free(pointer) }
            for pointer in envp { free(pointer) }
        }
        var child: pid_t = 0
        let spawned = posix_spawn(&child, executable, &actions, &attributes, argv, envp)
        close(writeEnd)
        guard spawned == 0 else {
            close(readEnd)
            throw LaunchFailure(operation: "posix_spawn \(executable)", errorNumber: spawned)
        }
        pid = child

        Thread { [self] in readToTheEnd(readEnd) }.start()
    }

    /// Collects what arrives on `descriptor` until end of file, then closes it.
    private func readToTheEnd(_ descriptor: Int32) {
        var buffer = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = read(descriptor, &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            let text = String(decoding: buffer[..<count], as: UTF8.self)
            collected.withLock { $0 += text }
        }
        close(descriptor)
        readerFinished.signal()
    }

    /// Everything the child has written so far.
    package var output: String { collected.withLock { $0 } }

    /// Blocks until the output contains `text`, or `timeout` seconds pass; returns whether it does.
    package func waitForOutput(containing text: String, timeout: TimeInterval) -> Bool {
        let deadline = Date().addingTimeInterval(timeout)
        while !output.contains(text) {
            if Date() >= deadline { return false }
            Thread.sleep(forTimeInterval: 0.002)
        }
        return true
    }

    /// Sends `signal` to the child.
    package func send(_ signal: Int32) {
        kill(pid, signal)
    }

    /// Blocks until the child ends and its output is read to the end; after `timeout` seconds, kills it with
    /// `SIGKILL` and returns `nil`.
    package func waitForExit(timeout: TimeInterval) -> Termination? {
        let deadline = Date().addingTimeInterval(timeout)
        var status: Int32 = 0
        var timedOut = false
        while waitpid(pid, &status, WNOHANG) == 0 {
            if Date() >= deadline {
                timedOut = true
                kill(pid, SIGKILL)
                _ = waitpid(pid, &status, 0)
                break
            }
            Thread.sleep(forTimeInterval: 0.002)
        }
        _ = readerFinished.wait(timeout: .now() + timeout)
        if timedOut { return nil }
        let signal = status & 0x7f
        return signal == 0 ? .exited((status >> 8) & 0xff) : .signalled(signal)
    }
}

/// Where the package's executables are: next to the test runner.
package enum ProductsDirectory {

    /// The directories searched for a product, best first: on Linux the test runner is itself an executable
    /// (`<products>/<package>PackageTests.xctest`), on Darwin a bundle loaded from the products directory.
    package static var candidates: [URL] {
        var directories: [URL] = []
        if let override = ProcessInfo.processInfo.environment["PK_PRODUCTS_DIR"] {
            directories.append(URL(fileURLWithPath: override))
        }
        for bundle in Bundle.allBundles where bundle.bundlePath.hasSuffix(".xctest") {
            directories.append(bundle.bundleURL.deletingLastPathComponent())
        }
        if let executable = Bundle.main.executableURL {
            directories.append(executable.resolvingSymlinksInPath().deletingLastPathComponent())
        }
        directories.append(URL(fileURLWithPath: CommandLine.arguments[0]).deletingLastPathComponent())
        return directories
    }

    /// The path of the executable product `name`, if one of the candidate directories has it.
    package static func executable(named name: String) -> String? {
        candidates.map { $0.appendingPathComponent(name).path }.first {
            FileManager.default.isExecutableFile(atPath: $0)
        }
    }
}
