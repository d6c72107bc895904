import Foundation
import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// This process's ends of the pipes to a child's standard streams (`-1` where the stream does not go through
/// this process): non-blocking and close-on-exec.
struct ParentEnds {
    var input: Int32 = -1
    var output: Int32 = -1
    var error: Int32 = -1
}

/// Launches a ``LaunchPlan`` with `posix_spawn`.
///
/// - The child leads a new process group (`POSIX_SPAWN_SETPGROUP`) when the plan says so, so that cancelling
///   signals it and everything it started, and a terminal's Ctrl-C reaches this process alone.
/// - Its signal mask is empty and every signal has its default action (`SETSIGMASK`, `SETSIGDEF`), whatever this
///   process's threads block or ignore (Swift programs often ignore `SIGPIPE`; libdispatch blocks signals it
///   watches).
/// - It inherits no descriptor but 0, 1 and 2: ours are close-on-exec, and on glibc ≥ 2.34 every descriptor from 3
///   up is closed in the child anyway (`posix_spawn_file_actions_addclosefrom_np`), which also covers descriptors
///   another library opened without close-on-exec.
/// - glibc's `posix_spawn` (a `vfork`-like clone) reports the `execve` error back, so a launch either fails here
///   with its errno or has succeeded.
enum Spawner {

    typealias Failure = ProcessProcedure.Error

    /// Spawns the child; returns its pid and our ends of its pipes. Pipes and files of `Pipe` streams that belong
    /// to the child are closed here, after the spawn, whether or not it succeeded. Files are opened by `opener`,
    /// which waits for a FIFO's other end until the procedure is cancelled (then this throws, and nothing is
    /// spawned).
    ///
    /// `Pipe` ends are claimed for `owner` (``PipeEndClaims``): an end claimed by another fails the launch.
    static func spawn(
        _ plan: LaunchPlan, opener: StreamFileOpener, owner: AnyObject
    ) throws(Failure) -> (pid: pid_t, ends: ParentEnds) {
        var ends = ParentEnds()
        var childSide: [Int32] = []
        var handedOver: [FileHandle] = []
        defer {
            for descriptor in childSide { SystemCalls.close(descriptor) }
        }
        do throws(Failure) {
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

            // Every source descriptor is numbered 3 or more (moved there if need be: a pipe or file opened while
            // this process has 0, 1 or 2 closed gets one of those), so that no file action on 0, 1 or 2 overwrites
            // the source of a later one.
            func give(_ descriptor: Int32, as target: Int32) throws(Failure) {
                var source = descriptor
                if source < 3 {
                    source = fcntl(descriptor, F_DUPFD_CLOEXEC, 3)
                    SystemCalls.close(descriptor)
                    guard source >= 0 else {
                        throw Failure(code: .launchFailed, detail: "fcntl: \(String(cString: strerror(errno)))")
                    }
                }
                childSide.append(source)
                posix_spawn_file_actions_adddup2(&actions, source, target)
            }
            // A handle's descriptor is copied, and a `Pipe`'s made close-on-exec (Foundation leaves them inheritable,
            // and without `addclosefrom` every child would inherit them) once its end is claimed, under the handles
            // lock.
            func copy(_ handle: FileHandle, stream: String, pipe: Pipe? = nil) throws(Failure) -> Int32 {
                let copy: Int32? = withHandlesLocked { claims in
                    if let pipe {
                        guard claims.claim(handle, for: owner) else { return nil }
                        _ = fcntl(pipe.fileHandleForReading.fileDescriptor, F_SETFD, FD_CLOEXEC)
                        _ = fcntl(pipe.fileHandleForWriting.fileDescriptor, F_SETFD, FD_CLOEXEC)
                    }
                    return fcntl(handle.fileDescriptor, F_DUPFD_CLOEXEC, 3)
                }
                guard let copy else {
                    let end = stream == "standardInput" ? "read" : "write"
                    throw Failure(
                        code: .invalidStandardStream,
                        detail: "\(stream): this Pipe's \(end) end was given to another ProcessProcedure first; a Pipe "
                            + "end goes to one process, as with Foundation.Process (give each process a Pipe of its "
                            + "own, or share a write end as .fileHandle(pipe.fileHandleForWriting) and close it once "
                            + "all have launched)")
                }
                guard copy >= 0 else {
                    throw Failure(
                        code: .invalidStandardStream,
                        detail: "\(stream): the file handle's descriptor \(handle.fileDescriptor): "
                            + String(cString: strerror(errno)))
                }
                return copy
            }
            func pipe() throws(Failure) -> (read: Int32, write: Int32) {
                switch SystemCalls.makePipe() {
                case .success(let ends): return ends
                case .failure(let error): throw Failure(code: .launchFailed, detail: error.description)
                }
            }
            switch plan.input.kind {
            case .inherit:
                break
            case .null:
                posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
            case .data:
                let pipe = try pipe()
                ends.input = pipe.write
                SystemCalls.setNonBlocking(pipe.write)
                try give(pipe.read, as: 0)
            case .file(let url):
                try give(try opener.openForReading(url.path, stream: "standardInput"), as: 0)
            case .fileHandle(let handle):
                try give(try copy(handle, stream: "standardInput"), as: 0)
            case .pipe(let pipe):
                try give(try copy(pipe.fileHandleForReading, stream: "standardInput", pipe: pipe), as: 0)
                handedOver.append(pipe.fileHandleForReading)
            }

            for (destination, target) in [(plan.output, Int32(1)), (plan.error, Int32(2))] {
                let stream = target == 1 ? "standardOutput" : "standardError"
                switch destination.kind {
                case .inherit:
                    break
                case .discard:
                    posix_spawn_file_actions_addopen(&actions, target, "/dev/null", O_WRONLY, 0)
                case .read:
                    let pipe = try pipe()
                    if target == 1 { ends.output = pipe.read } else { ends.error = pipe.read }
                    SystemCalls.setNonBlocking(pipe.read)
                    try give(pipe.write, as: target)
                case .file(let url, let append):
                    let flags = O_WRONLY | O_CREAT | (append ? O_APPEND : O_TRUNC)
                    try give(try opener.openForWriting(url.path, flags: flags, stream: stream), as: target)
                case .fileHandle(let handle):
                    try give(try copy(handle, stream: stream), as: target)
                case .pipe(let pipe):
                    try give(try copy(pipe.fileHandleForWriting, stream: stream, pipe: pipe), as: target)
                    handedOver.append(pipe.fileHandleForWriting)
                }
            }

            if let directory = plan.workingDirectory {
                guard let addChdir = SystemCalls.addChdir else {
                    throw Failure(
                        code: .launchFailed, detail: "this C library cannot set a spawned child's working directory")
                }
                let added = withUnsafeMutablePointer(to: &actions) { addChdir(UnsafeMutableRawPointer($0), directory) }
                guard added == 0 else {
                    throw Failure(code: .launchFailed, detail: "working directory: \(String(cString: strerror(added)))")
                }
            }
            if let addClosefrom = SystemCalls.addClosefrom {
                _ = withUnsafeMutablePointer(to: &actions) { addClosefrom(UnsafeMutableRawPointer($0), 3) }
            }

            var noSignals = sigset_t()
            sigemptyset(&noSignals)
            posix_spawnattr_setsigmask(&attributes, &noSignals)
            var allSignals = sigset_t()
            sigfillset(&allSignals)
            posix_spawnattr_setsigdefault(&attributes, &allSignals)
            var flags = POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF
            if plan.usesOwnProcessGroup {
                posix_spawnattr_setpgroup(&attributes, 0)
                flags |= POSIX_SPAWN_SETPGROUP
            }
            posix_spawnattr_setflags(&attributes, Int16(flags))

            let argv = plan.arguments.map { strdup($0) } + [nil]
            let envp = plan.environment.map { $0.map { strdup($0) } + [nil] }
            defer {
                for pointer in argv { free(pointer) }
                for pointer in envp ?? [] { free(pointer) }
            }
            var pid: pid_t = 0
            // PERF(W21): this process's environment is passed as it is, not copied through a dictionary.
            let spawned =
                if let envp {
                    posix_spawn(&pid, plan.path, &actions, &attributes, argv, envp)
                } else {
                    posix_spawn(&pid, plan.path, &actions, &attributes, argv, environ)
                }
            withHandlesLocked { _ in
                for handle in handedOver { try? handle.close() }
            }
            guard spawned == 0 else {
                let message = "\(plan.path): \(String(cString: strerror(spawned)))"
                switch spawned {
                case ENOENT, EACCES, ENOTDIR, EISDIR, ENOEXEC, ELOOP, ENAMETOOLONG:
                    throw Failure.invalidLaunchPath.with(detail: message)
                default:
                    throw Failure(code: .launchFailed, detail: message)
                }
            }
            return (pid, ends)
        } catch {
            SystemCalls.close(ends.input)
            SystemCalls.close(ends.output)
            SystemCalls.close(ends.error)
            throw error
        }
    }
}

/// The lock under which this module copies, changes and closes descriptors of the `FileHandle`s and `Pipe`s it is
/// given, and claims `Pipe` ends (``PipeEndClaims``): Foundation's `FileHandle.close()` checks and closes without a
/// lock of its own, so without it a descriptor could be copied as it is closed, or closed twice, the second time
/// after it was reused. A leaf: nothing else is locked while it is held.
private let handlesLock = PKMutex(PipeEndClaims())

/// Runs `body` under ``handlesLock``, with the claims it guards.
func withHandlesLocked<Result>(_ body: (inout PipeEndClaims) -> Result) -> Result {
    handlesLock.withLock { body(&$0) }
}
