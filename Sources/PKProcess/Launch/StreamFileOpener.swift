import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Opens the files of ``ProcessInputSource/file(_:)`` and ``ProcessOutputDestination/file(_:append:)`` streams for a
/// launch, on the supervising thread, without ever blocking where a cancel cannot reach it.
///
/// A plain `open(2)` of a FIFO blocks until the FIFO's other end is opened: a FIFO that nobody opens would hold the
/// supervising thread before `posix_spawn` for ever, and neither a cancel nor a time limit could stop it. So every
/// file is opened non-blocking (and made blocking again before the child gets it), and a FIFO's other end is waited
/// for here, in `poll` beside the supervisor's ``WakePipe``, which a cancel writes to:
/// - a FIFO for output is opened once a reader has it open: until then the non-blocking open fails with `ENXIO`, and
///   it is tried again at growing intervals (1 ms to 50 ms);
/// - a FIFO for input is opened at once, and given to the child once a writer has it open (`tee` with
///   `SPLICE_F_NONBLOCK` says so without reading: `EAGAIN` while a writer holds an empty FIFO), has written to it, or
///   has opened and closed it (the child then reads end of file). Without the writer, the child would read end of
///   file at once.
///
/// So the child is launched when the FIFO's other end is there, as a shell's `<` and `>` launch it, and the procedure
/// waits meanwhile; cancelled, it finishes without launching anything.
struct StreamFileOpener {

    typealias Failure = ProcessProcedure.Error

    /// The child's lifecycle: whether the procedure was cancelled.
    let lifecycle: ChildLifecycle
    /// The supervisor's wake-up pipe, written to when the procedure is cancelled.
    let wake: WakePipe

    /// The longest pause between two looks at a FIFO's other end, in milliseconds.
    static let longestPause: Int32 = 50

    /// Opens `path` for the child's standard input; waits for a writer when it is a FIFO.
    func openForReading(_ path: String, stream: String) throws(Failure) -> Int32 {
        let descriptor = openFile(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC, 0)
        guard descriptor >= 0 else { throw Self.failure(stream, path, errno) }
        if Self.isFIFO(descriptor: descriptor) {
            var probe = WriterProbe()
            defer { probe.close() }
            do {
                try wait(for: "a writer", of: path, stream: stream, watching: descriptor) {
                    probe.hasWriter(descriptor)
                }
            } catch {
                SystemCalls.close(descriptor)
                throw error
            }
        }
        SystemCalls.setBlocking(descriptor)
        return descriptor
    }

    /// Opens (creating it if need be) `path` with `flags` for the child's standard output or error; waits for a
    /// reader when it is a FIFO.
    func openForWriting(_ path: String, flags: Int32, stream: String) throws(Failure) -> Int32 {
        var descriptor: Int32 = -1
        var failure: Failure?
        try wait(for: "a reader", of: path, stream: stream) {
            descriptor = openFile(path, flags | O_NONBLOCK | O_CLOEXEC, 0o644)
            if descriptor >= 0 { return true }
            let number = errno
            // ENXIO: a FIFO that no one reads yet (a socket says the same, and is refused).
            if number == ENXIO && Self.isFIFO(path: path) || number == EINTR { return false }
            failure = Self.failure(stream, path, number)
            return true
        }
        if let failure { throw failure }
        SystemCalls.setBlocking(descriptor)
        return descriptor
    }

    /// Returns once `isReady` (asked at once, then after each pause) or `descriptor` is readable (has data, or its
    /// writer has come and gone); throws when the procedure is cancelled first.
    private func wait(
        for partner: String, of path: String, stream: String, watching descriptor: Int32 = -1,
        until isReady: () -> Bool
    ) throws(Failure) {
        var pause: Int32 = 1
        while true {
            if lifecycle.isTerminating {
                throw Failure(
                    code: .launchFailed, detail: "\(stream): cancelled while waiting for \(partner) of the FIFO \(path)"
                )
            }
            if isReady() { return }
            var descriptors = [pollfd(fd: wake.readEnd, events: Int16(POLLIN), revents: 0)]
            if descriptor >= 0 { descriptors.append(pollfd(fd: descriptor, events: Int16(POLLIN), revents: 0)) }
            _ = poll(&descriptors, nfds_t(descriptors.count), pause)
            if descriptors[0].revents != 0 { wake.drain() }
            if descriptors.count > 1, descriptors[1].revents != 0 { return }
            pause = min(pause * 2, Self.longestPause)
        }
    }

    private static func isFIFO(descriptor: Int32) -> Bool {
        var information = stat()
        return fstat(descriptor, &information) == 0 && (information.st_mode & S_IFMT) == S_IFIFO
    }

    private static func isFIFO(path: String) -> Bool {
        var information = stat()
        return stat(path, &information) == 0 && (information.st_mode & S_IFMT) == S_IFIFO
    }

    private static func failure(_ stream: String, _ path: String, _ number: Int32) -> Failure {
        Failure(code: .invalidStandardStream, detail: "\(stream): \(path): \(String(cString: strerror(number)))")
    }
}

/// Tells whether a FIFO opened for reading has a writer, without reading from it: `tee` (Linux) of one byte into a
/// scratch pipe, non-blocking, fails with `EAGAIN` while a writer holds the FIFO empty, copies a byte when it has
/// data, and returns 0 when no one writes. Where `tee` is missing or refuses, the answer is always no, and only data
/// or the writer's end (`poll`) is seen.
private struct WriterProbe {
    private var scratch: (read: Int32, write: Int32)?
    private var works = SystemCalls.tee != nil

    mutating func hasWriter(_ fifo: Int32) -> Bool {
        guard works, let tee = SystemCalls.tee else { return false }
        if scratch == nil {
            guard case .success(let ends) = SystemCalls.makePipe(nonBlocking: true) else {
                works = false
                return false
            }
            scratch = ends
        }
        guard let scratch else { return false }
        let copied = tee(fifo, scratch.write, 1, SystemCalls.spliceNonBlocking)
        if copied > 0 { return true }
        if copied == 0 { return false }
        if errno == EAGAIN { return true }
        if errno != EINTR { works = false }
        return false
    }

    func close() {
        if let scratch {
            SystemCalls.close(scratch.read)
            SystemCalls.close(scratch.write)
        }
    }
}

/// `open(2)` with a mode.
private func openFile(_ path: String, _ flags: Int32, _ mode: mode_t) -> Int32 {
    #if canImport(Glibc)
        Glibc.open(path, flags, mode)
    #elseif canImport(Musl)
        Musl.open(path, flags, mode)
    #else
        Darwin.open(path, flags, mode)
    #endif
}
