import Synchronization

/// Per-procedure log settings; all optional, falling back to ``Log``.
struct ProcedureLogSettings: Sendable {
    var enabled = true
    var severity: LogSeverity?
    var writer: (any LogWriter)?
    var formatter: (any LogFormatter)?
}

/// A procedure's log: one channel per severity, each callable.
///
/// ```swift
/// log.info("Hello World!")
/// procedure.log.info(message: "Yay! Finished!")
/// procedure.log.warning.message("Careful")
/// ```
///
/// A message is written when the global ``Log/enabled`` is on, this log is ``enabled``, and its severity is at
/// least both ``Log/severity`` and this log's ``severity``. Thread-safe; writers are called on the logging thread.
public struct ProcedureLog: Sendable {

    let owner: Procedure

    /// Whether this procedure logs at all. Defaults to `true`.
    public var enabled: Bool {
        get { owner.logSettings.enabled }
        nonmutating set { owner.updateLogSettings { $0.enabled = newValue } }
    }

    /// The least severe message this procedure writes, in addition to ``Log/severity``. `nil` means no extra filter.
    public var severity: LogSeverity? {
        get { owner.logSettings.severity }
        nonmutating set { owner.updateLogSettings { $0.severity = newValue } }
    }

    /// A writer for this procedure only; `nil` uses ``Log/writer``.
    public var writer: (any LogWriter)? {
        get { owner.logSettings.writer }
        nonmutating set { owner.updateLogSettings { $0.writer = newValue } }
    }

    /// A formatter for this procedure only; `nil` uses ``Log/formatter``.
    public var formatter: (any LogFormatter)? {
        get { owner.logSettings.formatter }
        nonmutating set { owner.updateLogSettings { $0.formatter = newValue } }
    }

    /// The verbose channel.
    public var verbose: LogChannel { LogChannel(log: self, severity: .verbose) }
    /// The info channel.
    public var info: LogChannel { LogChannel(log: self, severity: .info) }
    /// The event channel.
    public var event: LogChannel { LogChannel(log: self, severity: .event) }
    /// The debug channel.
    public var debug: LogChannel { LogChannel(log: self, severity: .debug) }
    /// The warning channel.
    public var warning: LogChannel { LogChannel(log: self, severity: .warning) }
    /// The fatal channel.
    public var fatal: LogChannel { LogChannel(log: self, severity: .fatal) }

    /// Whether a message of `severity` would be written now.
    public func willWrite(_ severity: LogSeverity) -> Bool {
        guard Log.allows(severity) else { return false }
        let settings = owner.logSettings
        return settings.enabled && severity >= (settings.severity ?? .verbose)
    }

    func write(_ severity: LogSeverity, _ message: () -> String, file: String, function: String, line: UInt) {
        guard Log.allows(severity) else { return }
        let settings = owner.logSettings
        guard settings.enabled, severity >= (settings.severity ?? .verbose) else { return }
        let entry = LogEntry(
            severity: severity, message: message(), subsystem: owner.procedureName, file: file, function: function,
            line: line)
        let formatter = settings.formatter ?? Log.formatter
        let writer = settings.writer ?? Log.writer
        writer.write(formatter.format(entry), entry: entry)
    }
}

/// One severity of a ``ProcedureLog``. Call it like a function: `log.info("text")` or `log.info(message: "text")`.
public struct LogChannel: Sendable {
    let log: ProcedureLog
    /// The severity this channel writes at.
    public let severity: LogSeverity

    /// Writes `message` at this channel's severity.
    public func callAsFunction(
        _ message: @autoclosure () -> String, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log.write(severity, message, file: file, function: function, line: line)
    }

    /// Writes `message` at this channel's severity (the seed documents' spelling).
    public func callAsFunction(
        message: @autoclosure () -> String, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log.write(severity, message, file: file, function: function, line: line)
    }

    /// Writes `text` at this channel's severity (ProcedureKit 5's spelling).
    public func message(
        _ text: @autoclosure () -> String, file: String = #fileID, function: String = #function,
        line: UInt = #line
    ) {
        log.write(severity, text, file: file, function: function, line: line)
    }
}
