import Foundation
import PKTesting
import Testing

@testable import GracefulShutdown

/// What one run of the GracefulShutdown example printed and how it ended.
struct ExampleRun: Sendable {
    var output = ""
    /// `nil` when it did not end within ``hangTimeout`` (it was then killed).
    var termination: ChildProcess.Termination?
    /// What went wrong while driving it (a line that never came); recorded as issues by the test.
    var problems: [String] = []

    var lines: [String] { output.split(separator: "\n").map(String.init) }
}

/// Runs the built GracefulShutdown example as a child process, on a thread of its own: `drive` sends it signals
/// once it has printed its ready line, then the run waits for it to end (killing it after ``hangTimeout``).
func runExample(
    _ arguments: [String], environment: [String: String]? = nil,
    drive: @escaping @Sendable (ChildProcess, inout [String]) -> Void = { _, _ in }
) async -> ExampleRun {
    guard let executable = ProductsDirectory.executable(named: "GracefulShutdown") else {
        let searched = ProductsDirectory.candidates.map(\.path).joined(separator: ", ")
        return ExampleRun(problems: ["GracefulShutdown is not built next to the tests (searched \(searched))"])
    }
    return await onThreadOfItsOwn {
        var run = ExampleRun()
        do {
            let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
            if child.waitForOutput(containing: "ready pid=\(child.pid)", timeout: hangTimeout) {
                drive(child, &run.problems)
            } else {
                run.problems.append("no ready line")
            }
            run.termination = child.waitForExit(timeout: hangTimeout)
            run.output = child.output
        } catch {
            run.problems.append("could not start \(executable): \(error)")
        }
        return run
    }
}

/// Sends `signal`, then waits for the line that shows the example saw it.
func send(
    _ signal: Int32, to child: ChildProcess, thenWaitFor acknowledgement: String, _ problems: inout [String]
) {
    child.send(signal)
    if !child.waitForOutput(containing: acknowledgement, timeout: hangTimeout) {
        problems.append("no \"\(acknowledgement)\" after signal \(signal)")
    }
}

/// Records the run's problems, a hang, and any ThreadSanitizer report from the child.
func expectCleanRun(_ run: ExampleRun, sourceLocation: SourceLocation = #_sourceLocation) {
    for problem in run.problems { Issue.record("\(problem)\noutput:\n\(run.output)", sourceLocation: sourceLocation) }
    if run.termination == nil, run.problems.isEmpty {
        Issue.record("the example did not exit\noutput:\n\(run.output)", sourceLocation: sourceLocation)
    }
    #expect(!run.output.contains("ThreadSanitizer"), sourceLocation: sourceLocation)
    // Signals are sent only after the ready line, so it must come after all three procedures started executing: a
    // procedure cancelled before it starts never executes, and an earlier signal could skip the stubborn job.
    if run.problems.isEmpty, let ready = run.lines.firstIndex(where: { $0.hasPrefix("ready pid=") }) {
        for name in ["upload", "poller", "stubborn"] {
            let executing = run.lines.firstIndex(of: "\(name): executing")
            #expect(
                executing.map { $0 < ready } == true, "\(name)\noutput:\n\(run.output)", sourceLocation: sourceLocation)
        }
    }
}

/// The GracefulShutdown example as a real process: signals from outside, its output and its exit status.
struct GracefulShutdownExampleTests {

    @Test(arguments: [SIGTERM, SIGINT])
    func aSignalShutsTheExampleDownGracefully(_ signal: Int32) async {
        let run = await runExample([
            "--wait-for-signal", "--grace", "60", "--cancellation-period", "60", "--upload-seconds", "0.3",
            "--stubborn-seconds", "0.3",
        ]) { child, _ in
            child.send(signal)
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(0))
        let name = signal == SIGTERM ? "SIGTERM" : "SIGINT"
        #expect(run.lines.contains("shutdown (\(name), signals received: 1)"))
        #expect(run.lines.contains("poller: cancelled (Cancelled: the process is shutting down), stopping"))
        #expect(run.lines.contains("upload: finished"))  // never cancelled
        #expect(run.lines.contains("stubborn: finished"))  // finished within the grace period, not cancelled
        #expect(run.lines.contains("stragglers: none"))
        #expect(run.lines.last == "exit 0")
    }

    @Test func aSignalTellsTheHandlersAndStopsTheServicesOneAtATimeInReverseOrder() async {
        let run = await runExample([
            "--wait-for-signal", "--grace", "60", "--cancellation-period", "60", "--upload-seconds", "0",
            "--stubborn-seconds", "0",
        ]) { child, _ in
            child.send(SIGTERM)
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(0))
        let lines = run.lines
        // The handler and the awaited request: code that is never cancelled learns of the shutdown.
        let told = lines.firstIndex(of: "http: shutdown requested, no longer accepting")
        let metricsTold = lines.firstIndex(of: "metrics: shutdown began (SIGTERM), will flush last")
        // Each stop begins once the one before it has returned: the most recently added first, metrics (stop
        // order 1) last.
        let order = ["http", "cache", "database", "metrics"]
        let stops = lines.filter { !$0.hasPrefix(" ") && ($0.hasSuffix(": stopping") || $0.hasSuffix(": stopped")) }
        #expect(stops == order.flatMap { ["\($0): stopping", "\($0): stopped"] }, "output:\n\(run.output)")
        #expect(told.map { $0 < lines.firstIndex(of: "http: stopped") ?? 0 } == true)
        #expect(metricsTold.map { $0 < lines.firstIndex(of: "metrics: stopped") ?? 0 } == true)
        if let section = lines.firstIndex(of: "participants:") {
            #expect(Array(lines.dropFirst(section + 1).prefix(4)) == order.map { "  \($0): stopped" })
        } else {
            Issue.record("no participants in the report\noutput:\n\(run.output)")
        }
        #expect(run.lines.last == "exit 0")
    }

    @Test func aFailingProcedureShutsTheRestDownAndTheReportSaysWhy() async {
        let run = await runExample([
            "--wait-for-signal", "--grace", "60", "--cancellation-period", "60", "--upload-seconds", "0.3",
            "--stubborn-seconds", "0.3",
        ]) { child, _ in
            child.send(SIGUSR1)  // the poller loses its connection
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(2))
        let lines = run.lines
        #expect(lines.contains("poller: connection lost, failing"))
        #expect(lines.contains("shutdown (poller failed: connection lost, signals received: 0)"))
        #expect(lines.contains("metrics: shutdown began (poller failed: connection lost), will flush last"))
        #expect(!lines.contains { $0.hasPrefix("poller: cancelled") })  // it had failed: nothing left to cancel
        #expect(lines.contains("upload: finished"))
        #expect(lines.contains("stubborn: finished"))
        #expect(lines.contains("stragglers: none"))
        #expect(lines.contains("  metrics: stopped"))
        #expect(run.lines.last == "exit 2")
    }

    @Test func aSecondSigtermEndsTheGracePeriodAndAThirdEndsTheWait() async {
        // Periods of ten minutes: only the signals can end this run before the hang timeout.
        let run = await runExample([
            "--wait-for-signal", "--grace", "600", "--cancellation-period", "600", "--upload-seconds", "0",
            "--stubborn-seconds", "600",
        ]) { child, problems in
            send(SIGTERM, to: child, thenWaitFor: "poller: cancelled", &problems)
            send(SIGTERM, to: child, thenWaitFor: "stubborn: cancelled", &problems)
            child.send(SIGTERM)
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(1))
        #expect(
            run.lines.contains(
                "stubborn: cancelled (Cancelled: the shutdown grace period expired), carrying on regardless"))
        #expect(run.lines.contains("shutdown (SIGTERM, signals received: 3)"))
        #expect(run.lines.contains("  stubborn (whenGracePeriodExpires): still running"))
        #expect(run.lines.last == "exit 1")
    }

    @Test func aProcedureIgnoringCancellationIsReportedWhenTheWaitEndsAndTheExampleStillExits() async {
        let run = await runExample([
            "--wait-for-signal", "--grace", "0.2", "--cancellation-period", "0.2", "--upload-seconds", "0",
            "--stubborn-seconds", "600",
        ]) { child, _ in
            child.send(SIGTERM)
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(1))
        #expect(run.lines.contains("  stubborn (whenGracePeriodExpires): still running"))
        #expect(run.lines.last == "exit 1")
    }

    @Test func runWithoutArgumentsTheExampleShutsItselfDownAndExits() async {
        let run = await runExample([])
        expectCleanRun(run)
        #expect(run.lines.contains("no signal after 0.3 s: requesting shutdown"))
        #expect(run.lines.contains("shutdown (requested, signals received: 0)"))
        // The stubborn job finishes 0.6 s into the 3 s cancellation period, so this is 0 unless the machine stalls
        // for seconds; either way the status printed is the status returned.
        switch run.termination {
        case .exited(let status): #expect(run.lines.last == "exit \(status)")
        case .signalled, nil: Issue.record("the example did not exit by itself: \(String(describing: run.termination))")
        }
    }

    @Test func underSystemdTheExampleSaysItIsStoppingAndHowLongItNeeds() async throws {
        let systemd = try DatagramListener()
        var environment = ProcessInfo.processInfo.environment
        environment["NOTIFY_SOCKET"] = systemd.address
        let run = await runExample(
            [
                // Long periods that the run never uses up (every procedure finishes at once), so a loaded machine
                // cannot turn this clean exit into a report of stragglers.
                "--wait-for-signal", "--grace", "30", "--cancellation-period", "20", "--upload-seconds", "0",
                "--stubborn-seconds", "0",
            ], environment: environment
        ) { child, _ in
            child.send(SIGTERM)
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(0))
        // Sent before the child exited, so it is waiting in the socket now.
        #expect(systemd.receiveIfAny() == "STOPPING=1\nEXTEND_TIMEOUT_USEC=51000000")  // 30 s + 20 s, and 1 s to exit
    }

    @Test func aBadCommandLineExitsWithStatus64AndTheUsage() async {
        guard let executable = ProductsDirectory.executable(named: "GracefulShutdown") else {
            Issue.record("GracefulShutdown is not built next to the tests")
            return
        }
        let run = await onThreadOfItsOwn { () -> ExampleRun in
            var run = ExampleRun()
            guard let child = try? ChildProcess(executable: executable, arguments: ["--grace", "soon"]) else {
                return run
            }
            run.termination = child.waitForExit(timeout: hangTimeout)
            run.output = child.output
            return run
        }
        #expect(run.termination == .exited(64))
        #expect(run.output.contains("--grace needs a number of seconds, not soon"))
        #expect(run.output.contains("usage: GracefulShutdown"))
    }

    // MARK: - The command line (the example's own code, imported)

    @Test func withoutArgumentsEveryOptionHasItsDefault() throws {
        let options = try Options.parse([])
        #expect(options == Options())
        #expect(options.shutdownAfter == 0.3)
        #expect(!options.showHelp)
    }

    @Test func everyOptionIsRead() throws {
        let options = try Options.parse([
            "--wait-for-signal", "--grace", "1", "--cancellation-period", "2", "--upload-seconds", "3",
            "--stubborn-seconds", "4", "--help",
        ])
        #expect(
            options
                == Options(
                    shutdownAfter: nil, gracePeriod: 1, cancellationPeriod: 2, uploadSeconds: 3, stubbornSeconds: 4,
                    showHelp: true))
        #expect(try Options.parse(["--shutdown-after", "5"]).shutdownAfter == 5)
    }

    @Test(arguments: [["--grace"], ["--grace", "-1"], ["--grace", "inf"], ["--loud"]])
    func aBadCommandLineIsAUsageError(_ arguments: [String]) {
        #expect(throws: Options.UsageError.self) { try Options.parse(arguments) }
    }
}
