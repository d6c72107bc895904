import PKCore
import PKTesting
import Synchronization

/// The tests' name for PKTesting's capturing writer.
typealias CapturingLogWriter = TestableLogWriter

/// A formatter that prefixes every message with a marker, to prove it was used.
struct MarkingLogFormatter: LogFormatter {
    let marker: String

    func format(_ entry: LogEntry) -> String { "\(marker) \(entry.message)" }
}
