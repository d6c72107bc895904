import Foundation
import PKCore
import PKObservers
import PKProcess
import PKTesting
import Testing

// The code of PKProcess's article "Running Processes" (PKProcess.docc/RunningProcesses.md) and of its root page
// (PKProcess.docc/PKProcess.md), as written there, so that it compiles and runs: keep them in step (Scripts/docs.sh
// checks that every example of the catalogue is in a test). What the examples print is checked after each one.

/// Lines an example prints, for the test to wait for: the example's `print` calls resolve to a local function of
/// the test that records them here (and prints them too).
private final class PrintedLines: Sendable {
    private let lines = PKMutex<[String]>([])
    private let arrived = DispatchSemaphore(value: 0)

    func record(_ line: String) {
        Swift.print(line)
        lines.withLock { $0.append(line) }
        arrived.signal()
    }

    /// Suspends until a line starting with `prefix` has been printed, and returns it; records an issue (instead of
    /// hanging) and returns `nil` after ``hangTimeout``.
    @discardableResult
    func waitForLine(
        startingWith prefix: String, sourceLocation: SourceLocation = #_sourceLocation
    ) async -> String? {
        let line = await onThreadOfItsOwn { () -> String? in
            let deadline = DispatchTime.now() + hangTimeout
            while true {
                if let line = self.lines.withLock({ $0.first { $0.hasPrefix(prefix) } }) { return line }
                guard self.arrived.wait(timeout: deadline) == .success else { return nil }
            }
        }
        if line == nil { Issue.record("nothing printed starting with \(prefix)", sourceLocation: sourceLocation) }
        return line
    }
}

/// The value `body` hands its completion handler.
private func completion<T: Sendable>(_ body: (@escaping @Sendable (T) -> Void) -> Void) async -> T {
    await withCheckedContinuation { continuation in body { continuation.resume(returning: $0) } }
}

@Suite(.timeLimit(.minutes(1)))
struct RunningProcessesGuideTests {

    // MARK: - Launching a process

    @Test func launchingAProcess() async throws {
        let queue = ProcedureQueue()
        let uname = ProcessProcedure(command: "uname", arguments: ["-s"], standardOutput: .capture())
        let result = try await queue.run(uname)
        print(result.standardOutputText)  // Linux
        // End of the article's example.
        #if os(Linux)
            #expect(result.standardOutputText == "Linux")
        #endif
        #expect(result.status == 0 && result.reason == .exit)
        #expect(uname.processIdentifier != 0)
    }

    @Test func environmentAndWorkingDirectory() async throws {
        let queue = ProcedureQueue()
        let greet = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo \"$GREETING from $(pwd)\""],
            currentDirectoryURL: URL(fileURLWithPath: "/tmp"),
            environment: ["GREETING": "hello", "PATH": "/usr/bin:/bin"], standardOutput: .capture())
        print(try await queue.run(greet).standardOutputText)  // hello from /tmp
        // End of the article's example.
        #expect(greet.output.value.flatMap { try? $0.get().standardOutputText } == "hello from /tmp")
    }

    @Test func badInputFailsBeforeAnythingIsLaunched() async {
        let queue = ProcedureQueue()
        let relative = ProcessProcedure(launchPath: "bin/tool")
        await #expect(throws: ProcessProcedure.Error.invalidLaunchPath) { try await queue.run(relative) }
        #expect(relative.processIdentifier == 0)
    }

    // MARK: - Finding the executable

    @Test func findingTheExecutableInPath() async throws {
        let queue = ProcedureQueue()
        let request = ProcessProcedure.LaunchRequest(command: "sha256sum", arguments: ["archive.tar.gz"])
        print(request.executableURL.path)  // /usr/bin/sha256sum: the first match in PATH

        do {
            try await queue.run(ProcessProcedure(command: "no-such-tool"))
        } catch let error as ProcessProcedure.Error where error.code == .executableNotFound {
            print(error)  // executable not found: no-such-tool was found in no directory of PATH (/usr/local/bin:…)
        }
        // End of the article's example.
        #expect(request.executableURL.lastPathComponent == "sha256sum")
        #expect(request.executableURL.path.hasPrefix("/"))
        let missing = ProcessProcedure(command: "no-such-tool")
        let error = await #expect(throws: ProcessProcedure.Error.self) { try await queue.run(missing) }
        #expect(error?.code == .executableNotFound)
        #expect(error?.detail.contains("no-such-tool was found in no directory of PATH") == true)
    }

    // MARK: - Capturing and streaming output

    @Test func streamingAndCapturingOutput() async throws {
        let queue = ProcedureQueue()
        let build = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo compiling; echo linking; echo 'warning: unused variable' >&2"],
            standardOutput: .lines { line in print("build: \(line)") }.capturing(limit: 1024 * 1024),
            standardError: .capture(limit: 64 * 1024))
        let output = try await queue.run(build)
        print(output.standardOutputText)  // compiling and linking, a line each
        print(String(decoding: output.standardError, as: UTF8.self))  // warning: unused variable
        // End of the article's example.
        #expect(output.standardOutputText == "compiling\nlinking")
        #expect(output.standardError == Data("warning: unused variable\n".utf8))
    }

    @Test func linesAreHandedOverInOrderOnTheSupervisingThread() async throws {
        let lines = PKMutex<[String]>([])
        let seq = ProcessProcedure(
            command: "seq", arguments: ["1", "5000"],
            standardOutput: .lines { line in lines.withLock { $0.append(line) } })
        try await ProcedureQueue().run(seq)
        #expect(lines.withLock { $0 } == (1...5000).map(String.init))
    }

    @Test func outputBeyondTheLimitFailsTheProcedure() async throws {
        let queue = ProcedureQueue()
        let chatty = ProcessProcedure(
            command: "seq", arguments: ["1", "1000000"], standardOutput: .capture(limit: 1024))
        do {
            try await queue.run(chatty)
        } catch let error as ProcessProcedure.Error where error.code == .outputLimitExceeded {
            print(error)  // output limit exceeded: /usr/bin/seq 1 1000000: standard output was 6888896 bytes, over …
        }
        // End of the article's example.
        let error = chatty.error as? ProcessProcedure.Error
        #expect(error?.code == .outputLimitExceeded)
        #expect(error?.detail.hasSuffix("standard output was 6888896 bytes, over the capture limit of 1024") == true)
        #expect(chatty.output.value.map { (try? $0.get()) == nil } == true)
    }

    @Test func outputToTheLogAndNothingFromStandardInput() async throws {
        let queue = ProcedureQueue()
        let migrate = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo migrated; echo 'slow query' >&2"], standardInput: .null,
            standardOutput: .log, standardError: .log)
        try await queue.run(migrate)
        // End of the article's example.
        #expect(migrate.output.value.map { (try? $0.get()) != nil } == true)
    }

    // MARK: - Standard input

    @Test func standardInputFromAString() async throws {
        let queue = ProcedureQueue()
        let sort = ProcessProcedure(
            command: "sort", standardInput: .string("pear\napple\nfig\n"), standardOutput: .capture())
        print(try await queue.run(sort).standardOutputText)  // apple, fig and pear, a line each
        // End of the article's example.
        #expect(sort.output.value.flatMap { try? $0.get().standardOutputText } == "apple\nfig\npear")
    }

    @Test func aChildThatStopsReadingEarlyIsNotAnError() async throws {
        let head = ProcessProcedure(
            command: "head", arguments: ["-c", "1"], standardInput: .data(Data(count: 4 * 1024 * 1024)),
            standardOutput: .capture())
        #expect(try await ProcedureQueue().run(head).standardOutput == Data([0]))
    }

    // MARK: - Pipelines

    @Test func aPipelineStageByStage() async throws {
        let queue = ProcedureQueue()
        let words = ProcessProcedure(
            command: "printf", arguments: ["%s\\n", "pear", "apple", "fig"], standardOutput: .capture())
        let sorted = ProcessProcedure(command: "sort", standardOutput: .capture()).injectStandardInput(from: words)
        let first = ProcessProcedure(command: "head", arguments: ["-n", "1"], standardOutput: .capture())
            .injectStandardInput(from: sorted)
        queue.add(procedures: words, sorted)
        print(try await queue.run(first).standardOutputText)  // apple
        // End of the article's example.
        #expect(first.output.value.flatMap { try? $0.get().standardOutputText } == "apple")
    }

    @Test func standardInputFromAnotherProcedure() async throws {
        let queue = ProcedureQueue()
        let report = ResultProcedure { Data("3 pears\n10 apples\n1 fig\n".utf8) }
        let ranked = ProcessProcedure(command: "sort", arguments: ["-rn"], standardOutput: .capture())
            .injectStandardInput(from: report)
        queue.add(procedure: report)
        print(try await queue.run(ranked).standardOutputText)  // 10 apples, 3 pears and 1 fig, a line each
        // End of the article's example.
        #expect(ranked.output.value.flatMap { try? $0.get().standardOutputText } == "10 apples\n3 pears\n1 fig")
    }

    @Test func aFailedStageCancelsTheNext() async throws {
        let queue = ProcedureQueue()
        let failing = ProcessProcedure(command: "false", standardOutput: .capture())
        let next = ProcessProcedure(command: "cat", standardOutput: .capture()).injectStandardInput(from: failing)
        queue.add(procedures: failing, next)
        await next.waitUntilFinished()
        #expect(next.isCancelled)
        #expect(next.processIdentifier == 0)
    }

    @Test func twoProcessesJoinedByAPipe() async throws {
        let queue = ProcedureQueue()
        let pipe = Pipe()
        let numbers = ProcessProcedure(command: "seq", arguments: ["1", "100000"], standardOutput: .pipe(pipe))
        let count = ProcessProcedure(
            command: "wc", arguments: ["-l"], standardInput: .pipe(pipe), standardOutput: .capture())
        queue.add(procedure: GroupProcedure(operations: numbers, count))  // cancelled together
        // End of the article's example.
        await count.waitUntilFinished()
        #expect(count.output.value.flatMap { try? $0.get().standardOutputText } == "100000")
    }

    // MARK: - Exit status and errors

    @Test func aRuleOfYourOwnForACleanExit() async throws {
        let queue = ProcedureQueue()
        // grep exits with status 1 when no line matches: an answer here, not a failure.
        let search = ProcessProcedure(
            command: "grep", arguments: ["-c", "needle"], standardInput: .string("hay\nstack\n"),
            standardOutput: .capture(), processDidExitCleanly: { status, reason in reason == .exit && status <= 1 })
        print(try await queue.run(search).status)  // 1
        // End of the article's example.
        #expect(search.output.value.flatMap { try? $0.get() }?.status == 1)
        #expect(search.output.value.flatMap { try? $0.get() }?.standardOutputText == "0")
    }

    @Test func anErrorCarriesTheStatusAndTheTailOfStandardError() async throws {
        let queue = ProcedureQueue()
        let failing = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo 'No space left on device' >&2; exit 3"],
            standardError: .capture(limit: 64 * 1024))
        do {
            try await queue.run(failing)
        } catch let error as ProcessProcedure.Error where error.code == .didNotExitCleanly {
            print(error.status, error.reason == .exit)  // 3 true
            print(error.standardErrorTail ?? "")  // No space left on device
            print(error)  // exited with status 3: /usr/bin/sh -c "…", then the tail of standard error
        }
        // End of the article's example.
        let error = try #require(failing.error as? ProcessProcedure.Error)
        #expect(error == .didNotExitCleanly(3, .exit))
        #expect(error.standardErrorTail == "No space left on device")
        #expect(error.description.hasPrefix("exited with status 3: "))
        #expect(error.description.hasSuffix("--- standard error (last lines) ---\nNo space left on device"))
    }

    @Test func aSignalIsNeverACleanExit() async throws {
        let killed = ProcessProcedure(command: "sh", arguments: ["-c", "kill -KILL $$"])
        await #expect(throws: ProcessProcedure.Error.didNotExitCleanly(SIGKILL, .uncaughtSignal)) {
            try await ProcedureQueue().run(killed)
        }
    }

    // MARK: - Cancellation, timeouts and process groups

    @Test func cancellingAProcess() async {
        let queue = ProcedureQueue()
        let printed = PrintedLines()
        @Sendable func print(_ line: String) { printed.record(line) }

        let server = ProcessProcedure(
            command: "sleep", arguments: ["600"],
            processDidLaunch: { server in print("launched, pid \(server.processIdentifier)") })
        server.terminationGracePeriod = .seconds(2)
        queue.add(procedure: server)
        // End of the article's example.
        await printed.waitForLine(startingWith: "launched")
        let pid = server.processIdentifier

        // … later: SIGTERM to its process group now, SIGKILL 2 s later if anything in it is still there.
        server.cancel()
        // End of the article's example.
        await server.waitUntilFinished()
        #expect(server.isCancelled)
        #expect(server.errors.isEmpty)  // how the process ended is not reported: the cancellation's errors are
        #expect(server.output.isPending)
        #expect(pid != 0 && !ProcessInspection.hasLiveMembers(processGroup: pid))  // nothing left in its process group
    }

    @Test func cancellationReachesWhatTheChildStarted() async throws {
        // The shell starts a sleep in the background, prints its pid and waits: cancelling ends both, since a
        // process group is signalled.
        let printed = PrintedLines()
        let shell = ProcessProcedure(
            command: "sh", arguments: ["-c", "sleep 600 & echo \"background $!\"; wait"],
            standardOutput: .lines { printed.record($0) })
        ProcedureQueue().add(procedure: shell)
        let line = try #require(await printed.waitForLine(startingWith: "background "))
        let grandchild = try #require(Int32(line.dropFirst("background ".count)))
        shell.cancel()
        await shell.waitUntilFinished()
        #expect(!ProcessInspection.isAlive(grandchild))
    }

    @Test func aTimeLimit() async throws {
        let queue = ProcedureQueue()
        let stuck = ProcessProcedure(command: "sleep", arguments: ["600"]).timeout(after: .seconds(1))
        do {
            try await queue.run(stuck)
        } catch let error as ProcedureKitError {
            print(error)  // Timed out (for 1.0 seconds): its process group got SIGTERM
        }
        // End of the article's example.
        #expect(stuck.isCancelled)
        #expect((stuck.error as? ProcedureKitError)?.context == .timedOut(.by(1)))
    }

    @Test func stoppingWithTheProgram() async {
        let queue = ProcedureQueue()
        let coordinator = ShutdownCoordinator()
        let worker = ProcessProcedure(command: "sleep", arguments: ["600"], standardInput: .null)
        worker.addObserver(BackgroundObserver(cancelProcedure: .whenShutdownRequested, coordinator: coordinator))
        queue.add(procedure: worker)
        // End of the article's example.
        let report = await onThreadOfItsOwn { coordinator.syncShutdownGracefully() }
        #expect(worker.isFinished && worker.isCancelled)
        #expect(report.isComplete)
    }

    // MARK: - Suspending and resuming

    @Test func suspendingAndResuming() async {
        let queue = ProcedureQueue()
        let printed = PrintedLines()
        @Sendable func print(_ line: String) { printed.record(line) }

        let encoder = ProcessProcedure(
            command: "sleep", arguments: ["600"],
            processDidLaunch: { encoder in print("encoding, pid \(encoder.processIdentifier)") })
        queue.add(procedure: encoder)
        // End of the article's example.
        await printed.waitForLine(startingWith: "encoding")

        encoder.suspend { suspended in print("stopped: \(suspended)") }  // SIGSTOP to its process group
        // …
        encoder.resume { resumed in print("continued: \(resumed)") }  // SIGCONT once every suspend is balanced
        // End of the article's example.
        #expect(await printed.waitForLine(startingWith: "stopped: ") == "stopped: true")
        #expect(await printed.waitForLine(startingWith: "continued: ") == "continued: true")
        #expect(await completion { encoder.suspend(completion: $0) } == true)
        #expect(await completion { encoder.suspend(completion: $0) } == true)
        #expect(await completion { encoder.resume(completion: $0) } == true)
        #expect(await completion { encoder.resume(completion: $0) } == true)
        #expect(await completion { encoder.resume(completion: $0) } == false)  // not suspended
        #expect(await completion { encoder.suspend(completion: $0) } == true)
        encoder.cancel()  // a suspended process is continued, so that it can act on SIGTERM
        await encoder.waitUntilFinished()
        #expect(encoder.isCancelled)
        #expect(await completion { encoder.suspend(completion: $0) } == false)  // not running
    }

    // MARK: - Migrating from ProcedureKit

    @Test func procedureKitsInitialiser() async throws {
        let queue = ProcedureQueue()
        let marker = FileManager.default.temporaryDirectory.appendingPathComponent("guide-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: marker) }
        let touch = ProcessProcedure(
            launchPath: "/usr/bin/touch", arguments: [marker.path],
            processDidLaunch: { procedure in print("launched \(procedure.processIdentifier)") })
        queue.add(procedure: touch)
        // End of the article's example.
        await touch.waitUntilFinished()
        #expect(
            touch.output.value.flatMap { try? $0.get() } == ProcessProcedure.TerminationResult(status: 0, reason: .exit)
        )
        #expect(FileManager.default.fileExists(atPath: marker.path))
    }

    @Test(arguments: [
        (ProcessProcedure(launchPath: ""), "check the launch path"),
        (ProcessProcedure(launchPath: "/no/such/tool"), "check the launch path"),
        (ProcessProcedure(launchPath: "/bin/sh", arguments: ["-c", "exit 1"]), "exited with status 1"),
        (ProcessProcedure(launchPath: "/bin/sh", arguments: ["-c", "exit 2"]), "exited with status 2"),
    ])
    func procedureKitsErrorSpellings(_ procedure: ProcessProcedure, _ expected: String) async {
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
        let said = PKMutex("")
        func print(_ text: Any) { said.withLock { $0 = "\(text)" } }

        if let error = procedure.error as? ProcessProcedure.Error {
            switch error {
            case .emptyLaunchPath, .invalidLaunchPath: print("check the launch path")
            case .didNotExitCleanly(1, .exit): print("exited with status 1")
            default: print(error)
            }
        }
        // End of the article's example.
        #expect(said.withLock { $0 }.hasPrefix(expected))
    }

    @Test func aStreamOfAnUnsupportedTypeFailsTheProcedure() async {
        let procedure = ProcessProcedure(launchPath: "/bin/cat", standardInput: "not a stream")
        let error = await #expect(throws: ProcessProcedure.Error.self) { try await ProcedureQueue().run(procedure) }
        #expect(error?.code == .invalidStandardStream)
        #expect(
            error?.detail
                == "standardInput is a String; use nil, a FileHandle, a Pipe or a ProcessInputSource (or Data)")
    }
}
