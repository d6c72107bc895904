/// How important a log message is, from ``verbose`` (least) to ``fatal`` (most).
///
/// The order follows ProcedureKit: `verbose < info < event < debug < warning < fatal`.
public enum LogSeverity: Int, Sendable, Comparable, CaseIterable, CustomStringConvertible {
    /// Fine-grained lifecycle detail.
    case verbose
    /// Informational messages.
    case info
    /// Notable events.
    case event
    /// Debugging output.
    case debug
    /// Something looks wrong but work continues.
    case warning
    /// Something is badly wrong.
    case fatal

    /// Orders severities from least to most important.
    public static func < (lhs: LogSeverity, rhs: LogSeverity) -> Bool { lhs.rawValue < rhs.rawValue }

    /// A short upper-case tag such as `INFO`.
    public var description: String {
        switch self {
        case .verbose: "VERBOSE"
        case .info: "INFO"
        case .event: "EVENT"
        case .debug: "DEBUG"
        case .warning: "WARNING"
        case .fatal: "FATAL"
        }
    }
}
