import Synchronization

/// The framework-wide logging settings.
///
/// Every procedure's ``Procedure/log`` writes only when ``enabled`` is `true` and the message's severity is at
/// least ``severity``. The settings are thread-safe and may be changed at any time.
public enum Log {

    private struct Settings: Sendable {
        var writer: any LogWriter = StandardErrorLogWriter()
        var formatter: any LogFormatter = StandardLogFormatter()
    }

    private static let enabledFlag = Atomic<Bool>(true)
    private static let severityRaw = Atomic<Int>(LogSeverity.info.rawValue)
    private static let settings = PKMutex(Settings())

    /// Whether any logging happens at all. Defaults to `true`.
    public static var enabled: Bool {
        get { enabledFlag.load(ordering: .relaxed) }
        set { enabledFlag.store(newValue, ordering: .relaxed) }
    }

    /// The least severe message that is written. Defaults to ``LogSeverity/info``.
    public static var severity: LogSeverity {
        get { LogSeverity(rawValue: severityRaw.load(ordering: .relaxed)) ?? .info }
        set { severityRaw.store(newValue.rawValue, ordering: .relaxed) }
    }

    /// Where lines go. Defaults to ``StandardErrorLogWriter``.
    public static var writer: any LogWriter {
        get { settings.withLock { $0.writer } }
        set {
            let replaced = settings.withLock { replaceValue(&$0.writer, with: newValue) }
            withExtendedLifetime(replaced) {}  // released outside the lock: its deinit is user code
        }
    }

    /// How entries become lines. Defaults to ``StandardLogFormatter``.
    public static var formatter: any LogFormatter {
        get { settings.withLock { $0.formatter } }
        set {
            let replaced = settings.withLock { replaceValue(&$0.formatter, with: newValue) }
            withExtendedLifetime(replaced) {}  // released outside the lock: its deinit is user code
        }
    }

    /// Whether a message of `severity` passes the global settings.
    static func allows(_ severity: LogSeverity) -> Bool {
        enabled && severity.rawValue >= severityRaw.load(ordering: .relaxed)
    }

    /// Writes a framework message that belongs to no procedure.
    package static func write(
        _ severity: LogSeverity, _ message: @autoclosure () -> String, subsystem: String? = nil,
        file: String = #fileID, function: String = #function, line: UInt = #line
    ) {
        guard allows(severity) else { return }
        let entry = LogEntry(
            severity: severity, message: message(), subsystem: subsystem, file: file, function: function, line: line)
        let (writer, formatter) = settings.withLock { ($0.writer, $0.formatter) }
        writer.write(formatter.format(entry), entry: entry)
    }
}
