import Dispatch
import PKCore

/// Runs test code with chosen global `Log` settings, one such block at a time in the whole process, and puts
/// the previous settings back afterwards.
///
/// `Log`'s settings are process-wide, and test frameworks run tests in parallel, so a test that turns logging
/// off (or captures it) would otherwise disturb another test that checks log output. Every test that changes
/// global log settings should do so through ``with(enabled:severity:writer:formatter:_:)``: the blocks exclude
/// each other (later ones wait), and each restores what it found.
///
/// ```swift
/// GlobalLogSettings.with(enabled: false) {
///     // thousands of procedures, expected warnings silenced
/// }
/// ```
public enum GlobalLogSettings {

    // A binary semaphore rather than a Mutex: the lock is held across arbitrary test code that may block.
    private static let gate = DispatchSemaphore(value: 1)

    /// Applies the given settings (`nil` leaves one unchanged), runs `body`, restores the previous settings and
    /// returns `body`'s result. Blocks while another such block is running.
    ///
    /// Do not nest calls (that deadlocks), and do not call it from code that another such block waits for.
    public static func with<R>(
        enabled: Bool? = nil, severity: LogSeverity? = nil, writer: (any LogWriter)? = nil,
        formatter: (any LogFormatter)? = nil, _ body: () throws -> R
    ) rethrows -> R {
        gate.wait()
        let saved = (Log.enabled, Log.severity, Log.writer, Log.formatter)
        defer {
            Log.enabled = saved.0
            Log.severity = saved.1
            Log.writer = saved.2
            Log.formatter = saved.3
            gate.signal()
        }
        if let enabled { Log.enabled = enabled }
        if let severity { Log.severity = severity }
        if let writer { Log.writer = writer }
        if let formatter { Log.formatter = formatter }
        return try body()
    }
}
