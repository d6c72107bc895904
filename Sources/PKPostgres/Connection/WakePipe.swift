#if Postgres
    #if canImport(Glibc)
        import Glibc
    #elseif canImport(Darwin)
        import Darwin
    #endif

    /// A pipe one thread writes a byte to so that another, waiting in `poll` on ``readDescriptor`` (beside its
    /// database socket), wakes up. Both ends are non-blocking and close-on-exec; writes never block or fail loudly
    /// (a full pipe already wakes the reader). Thread-safe: only the descriptors, fixed at creation, are shared.
    final class WakePipe: Sendable {
        let readDescriptor: Int32
        private let writeDescriptor: Int32

        init() {
            var ends: [Int32] = [-1, -1]
            if pipe(&ends) != 0 { ends = [-1, -1] }
            for end in ends where end >= 0 {
                _ = fcntl(end, F_SETFD, FD_CLOEXEC)
                _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
            }
            readDescriptor = ends[0]
            writeDescriptor = ends[1]
        }

        deinit {
            if readDescriptor >= 0 { close(readDescriptor) }
            if writeDescriptor >= 0 { close(writeDescriptor) }
        }

        /// Wakes the reader.
        func wake() {
            var byte: UInt8 = 1
            _ = write(writeDescriptor, &byte, 1)
        }

        /// Empties the pipe (the reader, after waking); returns whether anything had been written.
        @discardableResult
        func drain() -> Bool {
            var buffer = [UInt8](repeating: 0, count: 64)
            var woken = false
            while read(readDescriptor, &buffer, buffer.count) > 0 { woken = true }
            return woken
        }
    }
#endif
