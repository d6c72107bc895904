import Foundation
import PKCore
import PKObservers
import PKTesting
import Testing

/// ProcedureProfileLogger: the nested timeline it writes through the log.
struct ProcedureProfileLoggerTests {

    final class Named: Procedure, @unchecked Sendable {
        init(_ name: String) {
            super.init()
            self.name = name
        }
    }

    static func result(
        _ procedure: Procedure, created: TimeInterval, children: [ProfileResult] = [], cancelled: TimeInterval? = nil,
        started: TimeInterval? = 0.002
    ) -> ProfileResult {
        ProfileResult(
            identity: procedure.identity, created: created, attached: 0.001, started: started, cancelled: cancelled,
            finished: 0.010, children: children)
    }

    @Test func theTimelineNestsChildrenOnTheOutermostProfilersClock() {
        let root = Named("Root")
        let child = Named("Child")
        let grandchild = Named("Grandchild")
        let result = Self.result(
            root, created: 500,
            children: [
                Self.result(
                    child, created: 500.003, children: [Self.result(grandchild, created: 500.004, started: nil)],
                    cancelled: 0.005)
            ])
        let writer = TestableLogWriter()
        GlobalLogSettings.with(enabled: true, severity: .info, writer: writer) {
            ProcedureProfileLogger().finishedProfiling(withResult: result)
        }
        #expect(writer.entries.count == 1)
        #expect(writer.entries.first?.subsystem == "Root")
        #expect(writer.entries.first?.severity == .info)
        #expect(
            writer.messages.first?.components(separatedBy: "\n") == [
                "profile of \(root.identity)",
                "\(root.identity): attached +1.000 ms, started +2.000 ms, finished +10.000 ms (ran 8.000 ms)",
                "  \(child.identity): attached +4.000 ms, started +5.000 ms, cancelled +8.000 ms, finished +13.000 ms "
                    + "(ran 8.000 ms)",
                "    \(grandchild.identity): attached +5.000 ms, finished +14.000 ms",
            ])
    }

    @Test func nothingIsWrittenBelowTheLogsSeverity() {
        let writer = TestableLogWriter()
        GlobalLogSettings.with(enabled: true, severity: .warning, writer: writer) {
            ProcedureProfileLogger(severity: .info).finishedProfiling(withResult: Self.result(Named("A"), created: 1))
            ProcedureProfileLogger(severity: .warning).finishedProfiling(
                withResult: Self.result(Named("B"), created: 1))
        }
        #expect(writer.entries.map(\.subsystem) == ["B"])
    }

    @Test func nothingIsWrittenWhileLoggingIsOff() {
        let writer = TestableLogWriter()
        GlobalLogSettings.with(enabled: false, writer: writer) {
            ProcedureProfileLogger().finishedProfiling(withResult: Self.result(Named("A"), created: 1))
        }
        #expect(writer.entries.isEmpty)
    }

    @Test func aProfilerWithTheDefaultReporterLogsItsProcedure() {
        let writer = TestableLogWriter()
        let procedure = ClosureProcedure("Logged")
        GlobalLogSettings.with(enabled: true, severity: .info, writer: writer) {
            procedure.addObserver(ProcedureProfiler())
            let queue = ProcedureQueue()
            queue.add(procedure: procedure)
            waitForAll(procedure)
        }
        let profile = writer.entries.first { $0.subsystem == "Logged" && $0.message.hasPrefix("profile of") }
        #expect(profile?.message.contains("\(procedure.identity): attached +") == true)
    }
}
