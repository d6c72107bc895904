import Foundation

/// Receives formatted log lines.
///
/// Writers are called on the thread that logs, possibly concurrently, so they must be thread-safe.
///
/// To route the framework's logging into swift-log, write a small adapter in your own package:
///
/// ```swift
/// import Logging
/// import PKCore
///
/// struct SwiftLogWriter: LogWriter {
///     let logger: Logger
///     func write(_ text: String, entry: LogEntry) {
///         let level: Logger.Level = switch entry.severity {
///             case .verbose: .trace
///             case .info, .event: .info
///             case .debug: .debug
///             case .warning: .warning
///             case .fatal: .critical
///         }
///         logger.log(level: level, "\(entry.message)", metadata: ["procedure": "\(entry.subsystem ?? "-")"],
///                    file: entry.file, function: entry.function, line: entry.line)
///     }
/// }
///
/// Log.writer = SwiftLogWriter(logger: Logger(label: "procedures"))
/// ```
public protocol LogWriter: Sendable {
    /// Writes one formatted line; `entry` carries the structured fields.
    func write(_ text: String, entry: LogEntry)
}

/// Writes each line to standard error. This is the default writer.
public struct StandardErrorLogWriter: LogWriter {
    /// Creates the writer.
    public init() {}

    /// Writes `text` and a newline to standard error in one call, so concurrent lines do not interleave.
    public func write(_ text: String, entry: LogEntry) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
