import PKCore
import PKTesting
import Synchronization
import Testing

// The code of the article "Logging" (PKCore.docc/Logging.md), as written there, so that it compiles and runs: keep
// the two in step (Scripts/docs.sh checks that every example of the article is in a test, but for the swift-log
// adapter, which needs a package PKCore does not depend on). The examples that change the global settings run inside
// `GlobalLogSettings.with`, which puts them back.

// "Overview"

private final class Import: Procedure, @unchecked Sendable {
    override func execute() {
        log.info("importing")
        log.info(message: "the seed documents' spelling also works")
        log.warning.message("and so does ProcedureKit 5's")
        finish()
    }
}

// "Custom writers and formatters"

/// Keeps lines in memory, for tests or a diagnostics screen.
private final class MemoryLogWriter: LogWriter {
    private let stored = Mutex<[String]>([])
    var lines: [String] { stored.withLock { $0 } }

    func write(_ text: String, entry: LogEntry) {
        stored.withLock { $0.append(text) }
    }
}

/// One line of `key=value` pairs.
private struct KeyValueFormatter: LogFormatter {
    func format(_ entry: LogEntry) -> String {
        "level=\(entry.severity) procedure=\(entry.subsystem ?? "-") msg=\"\(entry.message)\""
    }
}

@Suite(.timeLimit(.minutes(1)))
struct LoggingGuideTests {

    @Test func globalSettings() {
        GlobalLogSettings.with {
            Log.severity = .warning  // only warnings and fatal messages
            Log.formatter = StandardLogFormatter(includesCallSite: false)
            // End of the article's example.
            #expect(Log.severity == .warning)
        }
    }

    @Test func perProcedureSettings() {
        let noisy = Import()
        noisy.log.enabled = false  // silence this procedure only
        let chatty = Import()
        chatty.log.severity = .warning  // this procedure writes warnings and worse
        chatty.log.writer = StandardErrorLogWriter()
        // End of the article's example.
        #expect(!noisy.log.enabled)
        #expect(chatty.log.severity == .warning)
    }

    @Test func aCustomWriterAndFormatterGetTheProceduresMessages() {
        GlobalLogSettings.with(enabled: true, severity: .info) {
            let memory = MemoryLogWriter()
            Log.writer = memory
            Log.formatter = KeyValueFormatter()
            // End of the article's example.
            let queue = ProcedureQueue()
            queue.add(procedure: Import())
            queue.waitUntilAllOperationsAreFinished()
            #expect(memory.lines.contains("level=INFO procedure=Import msg=\"importing\""))
        }
    }
}
