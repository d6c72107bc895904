/// Turns a ``LogEntry`` into the text a ``LogWriter`` writes.
///
/// Formatters are called on the thread that logs, possibly concurrently, so they must be thread-safe.
public protocol LogFormatter: Sendable {
    /// Returns the text for `entry`.
    func format(_ entry: LogEntry) -> String
}

/// The default formatter: `[SEVERITY] name: message (file:line)`.
public struct StandardLogFormatter: LogFormatter {
    /// Whether to append the call site.
    public var includesCallSite: Bool

    /// Creates the formatter, appending the call site unless told not to.
    public init(includesCallSite: Bool = true) {
        self.includesCallSite = includesCallSite
    }

    /// Formats `entry` as `[SEVERITY] name: message (file:line)`.
    public func format(_ entry: LogEntry) -> String {
        var text = "[\(entry.severity)] "
        if let subsystem = entry.subsystem { text += subsystem + ": " }
        text += entry.message
        if includesCallSite { text += " (\(entry.file):\(entry.line))" }
        return text
    }
}
