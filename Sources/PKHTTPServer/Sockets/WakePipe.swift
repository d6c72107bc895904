import Synchronization

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// The server's shutdown broadcast: a pipe whose read end every blocked thread polls beside its socket. Shutdown
/// writes one byte and nobody reads it, so the read end stays readable and wakes every poll, present and future.
///
/// The acceptor and every connection hold a reference; the descriptors are closed when the last one lets go, so
/// no thread ever polls a closed (or reused) descriptor number.
final class WakePipe: Sendable {

    /// The end to poll for `POLLIN`.
    let readEnd: Int32
    private let writeEnd: Int32
    private let signalled = Atomic<Bool>(false)
    private let closed = Atomic<Bool>(false)

    /// Creates the pipe; `nil` (with `errno` set) when the system has no descriptors to give.
    init?() {
        var ends: [Int32] = [-1, -1]
        guard pipe(&ends) == 0 else { return nil }
        for end in ends {
            _ = fcntl(end, F_SETFD, FD_CLOEXEC)
            _ = fcntl(end, F_SETFL, fcntl(end, F_GETFL) | O_NONBLOCK)
        }
        readEnd = ends[0]
        writeEnd = ends[1]
    }

    deinit {
        close()
    }

    /// Closes both ends, once. Only when no thread polls the read end any more: shutdown calls it once every
    /// thread of the server has ended; otherwise the last reference's release does.
    func close() {
        guard !closed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        closeDescriptor(readEnd)
        closeDescriptor(writeEnd)
    }

    /// Whether ``signal()`` has been called.
    var isSignalled: Bool { signalled.load(ordering: .acquiring) }

    /// Wakes every poll on ``readEnd``, now and later. Idempotent.
    func signal() {
        guard !signalled.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(writeEnd, &byte, 1)
    }
}

/// `close(2)`, which `WakePipe.close()` hides inside the class.
private func closeDescriptor(_ descriptor: Int32) {
    #if canImport(Glibc)
        _ = Glibc.close(descriptor)
    #elseif canImport(Musl)
        _ = Musl.close(descriptor)
    #else
        _ = Darwin.close(descriptor)
    #endif
}
