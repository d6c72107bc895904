import Foundation
import PKCore
import PKObservers
import Testing

@testable import PKProcess

#if canImport(Glibc)
    import Glibc
#endif

/// Whether a child gets a process group of its own depends on this program's terminal: none here (a test run has no
/// controlling terminal in the foreground), and a real one made by `script(1)`, which runs this test binary again in
/// a new terminal's foreground.
@Suite struct ControllingTerminalTests {
    let queue = ProcedureQueue()

    /// Set for the run of this binary inside `script`'s terminal.
    static let insideTerminal = ProcessInfo.processInfo.environment["PKPROCESS_INSIDE_TERMINAL"] == "1"

    // `swift test` runs this binary outside the terminal's foreground; run from a shell prompt, it would not apply.
    @Test(.enabled(if: !ControllingTerminal.thisProcessIsInTheForeground(), "this run is in a terminal's foreground"))
    func withoutATerminalInTheForegroundEachChildLeadsAGroupOfItsOwn() async throws {
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "cut -d ' ' -f 5 /proc/$$/stat"], standardOutput: .capture())
        #expect(procedure.usesOwnProcessGroup)
        let result = try await queue.run(procedure)
        #expect(Int32(result.standardOutputText.trimmingCharacters(in: .whitespaces)) == procedure.processIdentifier)
    }

    @Test func aChildOfAProgramInATerminalsForegroundMayReadTheTerminal() async throws {
        // `script` gives this binary a new terminal, in whose foreground it runs the test below; the answer the
        // child reads from /dev/tty is typed into that terminal through `script`'s standard input.
        let binary = try FileManager.default.destinationOfSymbolicLink(atPath: "/proc/self/exe")
        let command = "\(binary) --testing-library swift-testing --filter 'ControllingTerminalTests/insideATerminal'"
        var environment = ProcessInfo.processInfo.environment
        environment["PKPROCESS_INSIDE_TERMINAL"] = "1"
        let procedure = ProcessProcedure(
            command: "script", arguments: ["-qec", command, "/dev/null"], environment: environment,
            standardInput: .string("typed answer\n"), standardOutput: .capture(), standardError: .capture(),
            processDidExitCleanly: { _, _ in true })
        procedure.addObserver(TimeoutObserver(by: .seconds(120)))
        let result = try await queue.run(procedure)
        let output = String(decoding: result.standardOutput, as: UTF8.self)
        #expect(result.status == 0, "the run inside the terminal failed:\n\(output)")
        #expect(output.contains("insideATerminalAChildReadsItAndIsSignalledAlone"), "the inner test ran")
    }

    @Test(.enabled(if: insideTerminal, "run by the test above, inside script's terminal"))
    func insideATerminalAChildReadsItAndIsSignalledAlone() async throws {
        #expect(ControllingTerminal.thisProcessIsInTheForeground())
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "read answer < /dev/tty; echo \"$answer\""], standardOutput: .capture())
        #expect(!procedure.usesOwnProcessGroup, "a child in a group of its own would be stopped by SIGTTIN")
        // A child stopped by SIGTTIN would hold the procedure until this time limit cancels it.
        procedure.addObserver(TimeoutObserver(by: .seconds(20)))
        let result = try await queue.run(procedure)
        #expect(result.standardOutputText == "typed answer")
    }
}
