import PKCore
import PKTesting
import Synchronization

/// A log writer that keeps every line and entry it is given.
final class CapturingLogWriter: LogWriter {
    private let storage = PKMutex<[(text: String, entry: LogEntry)]>([])

    init() {}

    func write(_ text: String, entry: LogEntry) { storage.withLock { $0.append((text, entry)) } }

    var lines: [String] { storage.withLock { $0.map(\.text) } }
    var entries: [LogEntry] { storage.withLock { $0.map(\.entry) } }
    var messages: [String] { entries.map(\.message) }
}

/// A formatter that prefixes every message with a marker, to prove it was used.
struct MarkingLogFormatter: LogFormatter {
    let marker: String

    func format(_ entry: LogEntry) -> String { "\(marker) \(entry.message)" }
}
