import PKTesting
import Testing

@testable import PKCore

/// Logging. Every test here changes the global `Log` settings, so the suite is serialized and each test runs
/// inside `GlobalLogSettings.with`, which excludes other tests changing global settings (the stress suite) and
/// puts the settings back when it ends. No other suite depends on log output.
@Suite(.serialized)
struct LoggingTests {

    /// Runs `body` with a capturing global writer at `.verbose`, then restores every global setting.
    func withCapturedLog(_ body: (CapturingLogWriter) -> Void) {
        let writer = CapturingLogWriter()
        GlobalLogSettings.with(enabled: true, severity: .verbose, writer: writer) {
            body(writer)
        }
    }

    /// A procedure whose messages only this test sees (its own writer), named uniquely.
    func quietProcedure(_ name: String, writer: CapturingLogWriter) -> TestProcedure {
        let procedure = TestProcedure(name: name)
        procedure.log.writer = writer
        return procedure
    }

    @Test func allThreeSpellingsWrite() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let procedure = quietProcedure("Spellings", writer: writer)
            procedure.log.info("one")
            procedure.log.info(message: "two")
            procedure.log.info.message("three")
            #expect(writer.messages == ["one", "two", "three"])
            #expect(writer.entries.allSatisfy { $0.severity == .info && $0.subsystem == "Spellings" })
        }
    }

    @Test func everySeverityChannelWritesAtItsSeverity() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let log = quietProcedure("Channels", writer: writer).log
            log.verbose("v")
            log.info("i")
            log.event("e")
            log.debug("d")
            log.warning("w")
            log.fatal("f")
            #expect(writer.entries.map(\.severity) == LogSeverity.allCases)
        }
    }

    @Test func globallyDisabledLoggingWritesNothing() {
        withCapturedLog { global in
            let writer = CapturingLogWriter()
            let procedure = quietProcedure("Disabled", writer: writer)
            Log.enabled = false
            procedure.log.info("hidden")
            procedure.log.fatal("hidden too")
            #expect(!procedure.log.willWrite(.fatal))
            #expect(writer.messages.isEmpty)
            #expect(!global.entries.contains { $0.subsystem == "Disabled" })
        }
    }

    @Test(arguments: LogSeverity.allCases)
    func globalSeverityFiltersLessSevereMessages(_ threshold: LogSeverity) {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let log = quietProcedure("Filtered", writer: writer).log
            Log.severity = threshold
            log.verbose("verbose")
            log.info("info")
            log.event("event")
            log.debug("debug")
            log.warning("warning")
            log.fatal("fatal")
            let expected = LogSeverity.allCases.filter { $0 >= threshold }
            #expect(writer.entries.map(\.severity) == expected)
        }
    }

    @Test func perProcedureEnabledFalseWritesNothing() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let procedure = quietProcedure("Off", writer: writer)
            procedure.log.enabled = false
            #expect(!procedure.log.enabled)
            procedure.log.warning("hidden")
            #expect(writer.messages.isEmpty)
            let other = quietProcedure("On", writer: writer)
            other.log.warning("shown")
            #expect(writer.messages == ["shown"])
        }
    }

    @Test func perProcedureSeverityFiltersOnTopOfTheGlobalSeverity() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let procedure = quietProcedure("Picky", writer: writer)
            procedure.log.severity = .warning
            #expect(procedure.log.severity == .warning)
            procedure.log.info("hidden")
            procedure.log.debug("hidden")
            procedure.log.warning("shown")
            #expect(writer.messages == ["shown"])
            #expect(procedure.log.willWrite(.fatal))
            #expect(!procedure.log.willWrite(.info))
        }
    }

    @Test func procedureFormatterIsUsed() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let procedure = quietProcedure("Formatted", writer: writer)
            procedure.log.formatter = MarkingLogFormatter(marker: "<<>>")
            procedure.log.info("hello")
            #expect(writer.lines == ["<<>> hello"])
        }
    }

    @Test func globalWriterAndFormatterAreUsedWhenTheProcedureHasNone() {
        withCapturedLog { global in
            Log.formatter = MarkingLogFormatter(marker: "[global]")
            let procedure = TestProcedure(name: "UsesGlobal")
            procedure.log.info("hello")
            #expect(global.lines.contains("[global] hello"))
        }
    }

    @Test func standardFormatterShowsSeveritySubsystemMessageAndCallSite() {
        let entry = LogEntry(
            severity: .warning, message: "careful", subsystem: "P", file: "M/F.swift", function: "f()", line: 7)
        #expect(StandardLogFormatter().format(entry) == "[WARNING] P: careful (M/F.swift:7)")
        #expect(StandardLogFormatter(includesCallSite: false).format(entry) == "[WARNING] P: careful")
    }

    @Test func severitiesAreOrderedLikeProcedureKit() {
        #expect(LogSeverity.allCases == [.verbose, .info, .event, .debug, .warning, .fatal])
        #expect(LogSeverity.allCases == LogSeverity.allCases.sorted())
        #expect(LogSeverity.debug > LogSeverity.event)
    }

    @Test func lifecycleMessagesGoToTheProcedureLog() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let procedure = quietProcedure("Lifecycle", writer: writer)
            let queue = ProcedureQueue()
            queue.add(procedure: procedure)
            waitUntilEmpty(queue)  // the "did finish" message is written after the DidFinish observers
            #expect(writer.entries.contains { $0.severity == .verbose && $0.subsystem == "Lifecycle" })
        }
    }

    @Test func duplicateFinishIsReportedAsAWarning() {
        withCapturedLog { _ in
            let writer = CapturingLogWriter()
            let procedure = HookProcedure(name: "Twice") { procedure in
                procedure.finish()
                procedure.finish()
            }
            procedure.log.writer = writer
            let queue = ProcedureQueue()
            queue.add(procedure: procedure)
            waitForAll(procedure)
            #expect(writer.entries.contains { $0.severity == .warning })
        }
    }
}
