#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Why ``HTTPServer/start()`` failed: a code to switch on, the system's error number when a call failed, and a
/// message for people.
public struct HTTPServerError: Error, Sendable, Equatable, CustomStringConvertible {

    /// What failed.
    public enum Code: Sendable, Equatable {
        /// `start()` was called before: a server starts once.
        case alreadyStarted
        /// The server was shut down: it does not start again (make another).
        case shutDown
        /// The configured host is not an address the system can bind (it is resolved with `getaddrinfo`).
        case invalidAddress
        /// Making the listening socket, or the descriptors the server needs beside it, failed.
        case socket
        /// `bind(2)` failed, typically because the port is in use (`EADDRINUSE`).
        case bind
        /// `listen(2)` failed.
        case listen
    }

    /// What failed.
    public let code: Code

    /// The `errno` of the system call that failed, or 0.
    public let systemError: Int32

    /// A message naming what failed, and the system's explanation when there is one.
    public let description: String

    init(_ code: Code, systemError: Int32 = 0, _ message: String) {
        self.code = code
        self.systemError = systemError
        self.description = systemError == 0 ? message : "\(message): \(String(cString: strerror(systemError)))"
    }
}
