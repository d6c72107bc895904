import Foundation
import PKCore

/// A ``ProcedureProfilerReporter`` that writes each result as a nested timeline through the framework's log.
///
/// One log entry per profiled procedure, one line per procedure in it, children indented under their parent,
/// every time in milliseconds since the outermost profiler was created:
///
/// ```
/// profile of Pipeline #6000027d8a00
/// Pipeline #6000027d8a00: attached +0.004 ms, started +0.021 ms, finished +12.480 ms (ran 12.459 ms)
///   Download #6000027d8c80: attached +0.035 ms, started +0.052 ms, finished +9.113 ms (ran 9.061 ms)
///   Resize #6000027d8f00: attached +0.036 ms, cancelled +3.200 ms, finished +3.214 ms
/// ```
///
/// The entry goes to ``/PKCore/Log/writer`` through ``/PKCore/Log/formatter``, with the profiled procedure's name as
/// its subsystem, when ``/PKCore/Log/enabled`` is on and ``severity`` is at least ``/PKCore/Log/severity``. Called
/// on the thread that completed the result; thread-safe.
public struct ProcedureProfileLogger: ProcedureProfilerReporter {
    /// The severity the timeline is logged at.
    public let severity: LogSeverity

    /// Creates a logger writing at `severity` (by default ``/PKCore/LogSeverity/info``, which the default log
    /// settings write).
    public init(severity: LogSeverity = .info) {
        self.severity = severity
    }

    /// Writes the timeline of `result` as one log entry.
    public func finishedProfiling(withResult result: ProfileResult) {
        guard Log.enabled, severity >= Log.severity else { return }
        let entry = LogEntry(
            severity: severity, message: Self.timeline(of: result), subsystem: result.identity.name,
            file: #fileID, function: #function, line: #line)
        Log.writer.write(Log.formatter.format(entry), entry: entry)
    }

    /// The nested timeline: a heading, then one line per procedure.
    static func timeline(of result: ProfileResult) -> String {
        var lines = ["profile of \(result.identity)"]
        appendLines(of: result, origin: result.created, depth: 0, to: &lines)
        return lines.joined(separator: "\n")
    }

    private static func appendLines(
        of result: ProfileResult, origin: TimeInterval, depth: Int, to lines: inout [String]
    ) {
        // A child's times are relative to its own profiler: shift them onto the outermost profiler's timeline.
        let offset = result.created - origin
        var parts = ["attached \(milliseconds(offset + result.attached))"]
        if result.didExecute { parts.append("started \(milliseconds(offset + result.started))") }
        if let cancelled = result.cancelled { parts.append("cancelled \(milliseconds(offset + cancelled))") }
        if let finished = result.finished {
            var part = "finished \(milliseconds(offset + finished))"
            if result.didExecute {
                part += " (ran \(String(format: "%.3f ms", (finished - result.started) * 1000)))"
            }
            parts.append(part)
        }
        let indent = String(repeating: "  ", count: depth)
        lines.append("\(indent)\(result.identity): " + parts.joined(separator: ", "))
        for child in result.children {
            appendLines(of: child, origin: origin, depth: depth + 1, to: &lines)
        }
    }

    private static func milliseconds(_ seconds: TimeInterval) -> String {
        String(format: "+%.3f ms", seconds * 1000)
    }
}
