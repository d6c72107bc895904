import PKCore

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// An accepted connection's descriptor, owned by the connection's thread, which alone reads, writes and closes it.
///
/// The one other thread that touches it is ``HTTPServer/shutdown()``, once its bound has passed: it shuts the
/// socket down so that a blocked read or write returns. The lock makes that call and ``close()`` exclusive, so the
/// shutdown never reaches a descriptor number that was closed and reused. The lock is a leaf (no other lock is
/// taken under it) and never held by the owner while it reads or writes.
final class ConnectionSocket: Sendable {

    /// The descriptor, for the owning thread's reads, writes and polls.
    let descriptor: Int32
    private let open = PKMutex(true)

    /// Takes ownership of `descriptor`.
    init(_ descriptor: Int32) {
        self.descriptor = descriptor
    }

    /// Closes the descriptor (once; the owning thread calls it when the connection ends).
    func close() {
        open.withLock { open in
            guard open else { return }
            open = false
            #if canImport(Glibc)
                _ = Glibc.close(descriptor)
            #elseif canImport(Musl)
                _ = Musl.close(descriptor)
            #else
                _ = Darwin.close(descriptor)
            #endif
        }
    }

    /// Shuts both directions down if the descriptor is still open, waking the owner's blocked poll or send.
    func forceShutdown() {
        open.withLock { open in
            guard open else { return }
            _ = shutdown(descriptor, Int32(SHUT_RDWR))
        }
    }
}
