import Foundation
import PKCore
import PKProcess
import Testing

/// Bad launch requests fail the procedure with a typed error before anything is launched: never a crash or a hang.
@Suite struct BadInputTests {
    let queue = ProcedureQueue()

    private func failure(_ procedure: ProcessProcedure) async throws -> ProcessProcedure.Error {
        let error = try #require(await queue.outcome(of: procedure).processError)
        #expect(procedure.processIdentifier == 0, "nothing should have been launched")
        return error
    }

    @Test func anEmptyLaunchPath() async throws {
        #expect(try await failure(ProcessProcedure(launchPath: "")).code == .emptyLaunchPath)
        #expect(try await failure(ProcessProcedure(command: "")).code == .emptyLaunchPath)
    }

    @Test func aRelativeLaunchPath() async throws {
        let error = try await failure(ProcessProcedure(launchPath: "bin/tool"))
        #expect(error == .invalidLaunchPath)
        #expect(error.detail.contains("relative"))
    }

    @Test func aMissingExecutable() async throws {
        let error = try await failure(ProcessProcedure(launchPath: "/nonexistent/pkprocess-tool"))
        #expect(error == .invalidLaunchPath)
        #expect(error.detail.contains("No such file"))
    }

    @Test func aDirectory() async throws {
        let error = try await failure(ProcessProcedure(launchPath: "/tmp"))
        #expect(error == .invalidLaunchPath)
        #expect(error.detail.contains("is a directory"))
    }

    @Test func aFileThatIsNotExecutable() async throws {
        let directory = try TemporaryDirectory()
        let script = try directory.script("tool", "echo hi", executable: false)
        let error = try await failure(ProcessProcedure(executableURL: script))
        #expect(error == .invalidLaunchPath)
        #expect(error.detail.contains("not executable"))
    }

    @Test func aURLThatIsNotAFile() async throws {
        let error = try await failure(ProcessProcedure(executableURL: URL(string: "https://example.com/tool")!))
        #expect(error == .invalidLaunchPath)
    }

    @Test func anArgumentWithANulByte() async throws {
        let error = try await failure(ProcessProcedure(launchPath: "/bin/echo", arguments: ["ok", "bad\0byte"]))
        #expect(error.code == .invalidArguments)
        #expect(error.detail.contains("argument 1"))
    }

    @Test(arguments: [["A=B": "x"], ["": "x"], ["NUL\0KEY": "x"], ["KEY": "nul\0value"]])
    func aBadEnvironment(environment: [String: String]) async throws {
        let error = try await failure(ProcessProcedure(launchPath: "/bin/echo", environment: environment))
        #expect(error.code == .invalidEnvironment)
    }

    @Test func aMissingWorkingDirectory() async throws {
        let error = try await failure(
            ProcessProcedure(launchPath: "/bin/pwd", currentDirectoryPath: "/nonexistent/pkprocess-dir"))
        #expect(error.code == .invalidCurrentDirectory)
    }

    @Test func aWorkingDirectoryThatIsAFile() async throws {
        let error = try await failure(ProcessProcedure(launchPath: "/bin/pwd", currentDirectoryPath: "/bin/sh"))
        #expect(error.code == .invalidCurrentDirectory)
        #expect(error.detail.contains("not a directory"))
    }

    @Test func aStreamOfAnUnsupportedType() async throws {
        let error = try await failure(ProcessProcedure(launchPath: "/bin/echo", standardOutput: 42))
        #expect(error.code == .invalidStandardStream)
        #expect(error.detail.contains("standardOutput is a Int"))
    }

    @Test func anInputFileThatCannotBeOpened() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/pkprocess-input")
        let error = try await failure(ProcessProcedure(command: "cat", standardInput: .file(missing)))
        #expect(error.code == .invalidStandardStream)
        #expect(error.detail.contains("standardInput"))
    }

    @Test func anOutputFileThatCannotBeCreated() async throws {
        let missing = URL(fileURLWithPath: "/nonexistent/pkprocess-output")
        let error = try await failure(ProcessProcedure(command: "echo", standardOutput: .file(missing)))
        #expect(error.code == .invalidStandardStream)
    }

    @Test func aCommandInNoDirectoryOfPath() async throws {
        let directory = try TemporaryDirectory()
        let error = try await failure(
            ProcessProcedure(command: "pkprocess-no-such-tool", environment: ["PATH": directory.url.path]))
        #expect(error.code == .executableNotFound)
        #expect(error.detail.contains(directory.url.path))
    }

    @Test func aCommandFoundOnlyAsANonExecutableFile() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.script("tool", "echo hi", executable: false)
        let error = try await failure(ProcessProcedure(command: "tool", environment: ["PATH": directory.url.path]))
        #expect(error.code == .executableNotFound)
        #expect(error.detail.contains("not executable"))
    }

    @Test func noRequestFailsWithRequirementNotSatisfied() async throws {
        let procedure = ProcessProcedure()
        let outcome = await queue.outcome(of: procedure)
        guard case .failure(let error) = outcome else {
            Issue.record("expected a failure")
            return
        }
        #expect((error as? ProcedureKitError) == ProcedureKitError.requirementNotSatisfied())
    }
}

/// `PATH` search as a shell does it.
@Suite struct ExecutableSearchTests {
    let queue = ProcedureQueue()

    @Test func aCommandIsFoundInTheFirstDirectoryOfPathThatHasIt() async throws {
        let first = try TemporaryDirectory()
        let second = try TemporaryDirectory()
        _ = try first.script("tool", "echo first", executable: false)
        _ = try second.script("tool", "echo second")
        let third = try TemporaryDirectory()
        _ = try third.script("tool", "echo third")
        let path = [first.url.path, "", second.url.path, third.url.path].joined(separator: ":")
        let request = ProcessProcedure.LaunchRequest(command: "tool", environment: ["PATH": path])
        #expect(request.executableURL.path == second.url.appendingPathComponent("tool").path)
        let procedure = ProcessProcedure(command: "tool", environment: ["PATH": path], standardOutput: .capture())
        #expect(try await queue.run(procedure).standardOutputText == "second")
    }

    @Test func thisProcesssPathIsUsedWithoutAnEnvironment() {
        let request = ProcessProcedure.LaunchRequest(command: "sh")
        #expect(request.executableURL.path.hasSuffix("/sh"))
        #expect(FileManager.default.isExecutableFile(atPath: request.executableURL.path))
    }

    @Test func aCommandWithASlashIsAPath() {
        let request = ProcessProcedure.LaunchRequest(command: "/bin/sh")
        #expect(request.executableURL.path == "/bin/sh")
    }
}
