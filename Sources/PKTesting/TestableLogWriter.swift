import PKCore
import Synchronization

/// A log writer that keeps every line and entry it is given, for checking what was logged (ProcedureKit's
/// `TestableLogWriter`).
///
/// Install it with ``GlobalLogSettings/with(enabled:severity:writer:formatter:_:)`` (process-wide) or on one
/// procedure's log. Thread-safe.
public final class TestableLogWriter: LogWriter {
    private let storage = PKMutex<[(text: String, entry: LogEntry)]>([])

    /// Creates an empty writer.
    public init() {}

    /// Keeps `text` and `entry`.
    public func write(_ text: String, entry: LogEntry) { storage.withLock { $0.append((text, entry)) } }

    /// Every formatted line, in the order written.
    public var lines: [String] { storage.withLock { $0.map(\.text) } }
    /// Every entry, in the order written.
    public var entries: [LogEntry] { storage.withLock { $0.map(\.entry) } }
    /// Every entry's message, in the order written.
    public var messages: [String] { entries.map(\.message) }
}
