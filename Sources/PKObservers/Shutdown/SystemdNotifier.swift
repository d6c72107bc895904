import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Musl)
    import Musl
#elseif canImport(Darwin)
    import Darwin
#endif

/// Tells systemd about the service's state over `$NOTIFY_SOCKET`, the datagram protocol `sd_notify(3)` describes,
/// without linking libsystemd.
///
/// A `Type=notify` service started by systemd finds the socket's path in the `NOTIFY_SOCKET` environment variable
/// (a path, or an abstract socket name starting with `@`). Each message is one datagram of newline-separated
/// `KEY=value` assignments. ``ShutdownCoordinator`` sends `STOPPING=1` and `EXTEND_TIMEOUT_USEC=…` when shutdown
/// begins: systemd then waits that long before it sends `SIGKILL`, even past `TimeoutStopSec`, which is the
/// closest Linux has to asking iOS for background time.
///
/// ```swift
/// if let systemd = SystemdNotifier() {
///     try? systemd.send("READY=1")
/// }
/// ```
///
/// Thread-safe: each send opens, uses and closes its own socket.
public struct SystemdNotifier: Sendable, Hashable {

    /// Why a message could not be sent.
    public struct Failure: Error, Hashable, CustomStringConvertible {
        /// The system call that failed (`"socket"`, `"sendto"`), or `"address"` when the path does not fit a Unix
        /// socket address.
        public let operation: String
        /// The `errno` it set (`ENAMETOOLONG` for a path that does not fit).
        public let errorNumber: Int32

        /// Creates a failure record.
        public init(operation: String, errorNumber: Int32) {
            self.operation = operation
            self.errorNumber = errorNumber
        }

        /// `"<operation> failed: <strerror>"`.
        public var description: String {
            "\(operation) failed: \(String(cString: strerror(errorNumber)))"
        }
    }

    /// The socket's path; a leading `@` names an abstract socket.
    public let socketPath: String

    /// Creates a notifier that sends to `socketPath` (a leading `@` names an abstract socket).
    public init(socketPath: String) {
        self.socketPath = socketPath
    }

    /// Creates a notifier for the socket named by `NOTIFY_SOCKET` in `environment`; `nil` when it is unset or empty
    /// (the process was not started by systemd as a `Type=notify` service).
    public init?(environment: [String: String] = ProcessInfo.processInfo.environment) {
        guard let path = environment["NOTIFY_SOCKET"], !path.isEmpty else { return nil }
        self.init(socketPath: path)
    }

    /// Sends `message` (newline-separated `KEY=value` assignments, such as `"STOPPING=1"`) as one datagram.
    ///
    /// Returns once the datagram is handed to the kernel; systemd does not answer.
    public func send(_ message: String) throws(Failure) {
        var address = sockaddr_un()
        address.sun_family = sa_family_t(AF_UNIX)
        var path = Array(socketPath.utf8)
        let isAbstract = path.first == UInt8(ascii: "@")
        if isAbstract { path[0] = 0 }
        // A filesystem path needs room for its terminating NUL; an abstract name is counted exactly.
        let capacity = MemoryLayout.size(ofValue: address.sun_path)
        guard !path.isEmpty, path.count + (isAbstract ? 0 : 1) <= capacity else {
            throw Failure(operation: "address", errorNumber: ENAMETOOLONG)
        }
        withUnsafeMutableBytes(of: &address.sun_path) { $0.copyBytes(from: path) }
        let pathOffset = MemoryLayout<sockaddr_un>.offset(of: \sockaddr_un.sun_path) ?? 2
        let length = socklen_t(pathOffset + path.count + (isAbstract ? 0 : 1))

        #if canImport(Glibc)
            let socketType = Int32(SOCK_DGRAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue)
        #else
            let socketType = SOCK_DGRAM
        #endif
        let descriptor = socket(AF_UNIX, socketType, 0)
        guard descriptor >= 0 else { throw Failure(operation: "socket", errorNumber: errno) }
        defer { close(descriptor) }

        let payload = Array(message.utf8)
        let sent = payload.withUnsafeBytes { bytes in
            withUnsafePointer(to: &address) { pointer in
                pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    sendto(descriptor, bytes.baseAddress, bytes.count, 0, $0, length)
                }
            }
        }
        guard sent >= 0 else { throw Failure(operation: "sendto", errorNumber: errno) }
    }

    /// Sends `STOPPING=1`, and with a timeout `EXTEND_TIMEOUT_USEC=` that many microseconds (rounded up).
    func notifyStopping(within timeout: Duration?) throws(Failure) {
        var message = "STOPPING=1"
        if let timeout {
            message += "\nEXTEND_TIMEOUT_USEC=\(Self.microseconds(timeout))"
        }
        try send(message)
    }

    /// `duration` in whole microseconds, rounded up; zero for a negative duration.
    static func microseconds(_ duration: Duration) -> Int64 {
        guard duration > .zero else { return 0 }
        guard duration < .seconds(Int64.max / 1_000_000) else { return .max }
        let (seconds, attoseconds) = duration.components
        let perMicrosecond: Int64 = 1_000_000_000_000
        let (whole, rest) = attoseconds.quotientAndRemainder(dividingBy: perMicrosecond)
        let (product, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000)
        guard !overflow else { return .max }
        return product + whole + (rest > 0 ? 1 : 0)
    }
}
