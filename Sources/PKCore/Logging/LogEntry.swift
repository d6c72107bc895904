import Foundation

/// One log message, with where and when it was written.
public struct LogEntry: Sendable {
    /// How important the message is.
    public let severity: LogSeverity
    /// The message text.
    public let message: String
    /// The name of the procedure that logged it, or `nil` for framework-wide messages.
    public let subsystem: String?
    /// The file that logged it (`#fileID`).
    public let file: String
    /// The function that logged it.
    public let function: String
    /// The line that logged it.
    public let line: UInt
    /// When it was logged.
    public let timestamp: Date

    /// Creates an entry; the framework does this for you when you log.
    public init(
        severity: LogSeverity, message: String, subsystem: String?, file: String, function: String, line: UInt,
        timestamp: Date = Date()
    ) {
        self.severity = severity
        self.message = message
        self.subsystem = subsystem
        self.file = file
        self.function = function
        self.line = line
        self.timestamp = timestamp
    }
}
