import Foundation
import PKCore
import PKProcess
import Testing

/// How a process's end becomes the procedure's result: ProcedureKit's rule, custom rules, signals, and the tail of
/// standard error in the error.
@Suite struct ExitStatusTests {
    let queue = ProcedureQueue()

    @Test(arguments: [1, 2, 42, 255])
    func aNonZeroExitFailsWithItsStatus(status: Int32) async throws {
        let procedure = ProcessProcedure(command: "sh", arguments: ["-c", "exit \(status)"])
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(error == .didNotExitCleanly(status, .exit))
        guard case .ready(.failure) = procedure.output else {
            Issue.record("the output should be the failure, not \(procedure.output)")
            return
        }
    }

    @Test func theErrorDescriptionEndsWithTheTailOfStandardError() async throws {
        let script = "for i in $(seq 1 2000); do echo \"line $i\" >&2; done; exit 3"
        let procedure = ProcessProcedure(command: "sh", arguments: ["-c", script], standardError: .capture())
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(error == .didNotExitCleanly(3, .exit))
        let tail = try #require(error.standardErrorTail)
        #expect(tail.hasSuffix("line 2000"))
        #expect(tail.hasPrefix("line "))
        #expect(tail.utf8.count <= ProcessOutputDestination.standardErrorTailLimit)
        #expect(!tail.contains("line 1\n"))
        #expect(error.description.contains("exited with status 3"))
        #expect(error.description.contains("line 2000"))
        #expect(error.description.contains("sh -c"))
    }

    @Test func standardErrorStreamedAsLinesAlsoFillsTheTail() async throws {
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo 'disk full' >&2; exit 1"], standardError: .lines { _ in })
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(error.standardErrorTail == "disk full")
    }

    @Test func inheritedStandardErrorLeavesNoTail() async throws {
        let procedure = ProcessProcedure(command: "sh", arguments: ["-c", "exit 1"], standardError: .discard)
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(error.standardErrorTail == nil)
    }

    @Test func aSignalIsNeverCleanByDefault() async throws {
        let procedure = ProcessProcedure(command: "sh", arguments: ["-c", "kill -USR1 $$"])
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(error == .didNotExitCleanly(SIGUSR1, .uncaughtSignal))
        #expect(error.description.contains("killed by signal \(SIGUSR1)"))
    }

    @Test func aCustomRuleDecides() async throws {
        // grep exits 1 when nothing matches: not a failure for this caller.
        let procedure = ProcessProcedure(
            command: "grep", arguments: ["needle"], standardInput: .string("haystack\n"),
            processDidExitCleanly: { status, reason in reason == .exit && status <= 1 })
        let result = try await queue.run(procedure)
        #expect(result.status == 1)
    }

    @Test func errorsMatchInASwitchAsProcedureKitsEnumDid() {
        func kind(_ error: ProcessProcedure.Error) -> String {
            switch error {
            case .emptyLaunchPath: "empty"
            case .invalidLaunchPath: "invalid"
            case .didNotExitCleanly(1, .exit): "exit 1"
            default: "other \(error.code)"
            }
        }
        #expect(kind(.emptyLaunchPath) == "empty")
        #expect(kind(ProcessProcedure.Error(code: .invalidLaunchPath, detail: "x")) == "invalid")
        #expect(kind(.didNotExitCleanly(1, .exit)) == "exit 1")
        #expect(kind(.didNotExitCleanly(2, .exit)) == "other didNotExitCleanly")
    }
}
