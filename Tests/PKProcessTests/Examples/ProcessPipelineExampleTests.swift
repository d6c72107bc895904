import Foundation
import PKTesting
import Testing

@testable import ProcessPipeline

/// What one run of the ProcessPipeline example printed, how it ended, and what it left behind.
private struct PipelineRun: Sendable {
    var output = ""
    /// `nil` when it did not end within ``hangTimeout`` (it was then killed).
    var termination: ChildProcess.Termination?
    /// What went wrong while driving it (a line that never came); recorded as issues by the test.
    var problems: [String] = []
    /// What the run left in its temporary directory (`TMPDIR`), which should be nothing.
    var leftInTemporaryDirectory: [String] = []
    /// The stages' process groups (each stage leads its own) that still had a process after the example exited;
    /// they are killed before the run returns.
    var liveProcessGroups: [Int32] = []

    var lines: [String] { output.split(separator: "\n").map(String.init) }

    /// The pids of the stages started, from their "<stage>: started … (pid N)" lines.
    var stagePIDs: [Int32] {
        lines.compactMap { line in
            guard line.contains(": started "), let open = line.range(of: "(pid ", options: .backwards),
                line.hasSuffix(")")
            else { return nil }
            return Int32(line[open.upperBound..<line.index(before: line.endIndex)])
        }
    }
}

/// Runs the built ProcessPipeline example as a child process with a temporary directory (`TMPDIR`) of its own, on a
/// thread of its own: `drive` acts on it while it runs, then the run waits for it to end (killing it after
/// ``hangTimeout``), and checks that the directory is empty and that no stage's process group is left.
private func runPipeline(
    _ arguments: [String], drive: @escaping @Sendable (ChildProcess, inout [String]) -> Void = { _, _ in }
) async -> PipelineRun {
    guard let executable = ProductsDirectory.executable(named: "ProcessPipeline") else {
        let searched = ProductsDirectory.candidates.map(\.path).joined(separator: ", ")
        return PipelineRun(problems: ["ProcessPipeline is not built next to the tests (searched \(searched))"])
    }
    return await onThreadOfItsOwn {
        var run = PipelineRun()
        let temporary = FileManager.default.temporaryDirectory
            .appendingPathComponent("ProcessPipelineExampleTests-\(UUID().uuidString)")
        do {
            try FileManager.default.createDirectory(at: temporary, withIntermediateDirectories: false)
        } catch {
            run.problems.append("could not make \(temporary.path): \(error)")
            return run
        }
        var environment = ProcessInfo.processInfo.environment
        environment["TMPDIR"] = temporary.path
        do {
            let child = try ChildProcess(executable: executable, arguments: arguments, environment: environment)
            drive(child, &run.problems)
            run.termination = child.waitForExit(timeout: hangTimeout)
            run.output = child.output
        } catch {
            run.problems.append("could not start \(executable): \(error)")
        }
        for group in run.stagePIDs where ProcessInspection.hasLiveMembers(processGroup: group) {
            run.liveProcessGroups.append(group)
            kill(-group, SIGKILL)
        }
        run.leftInTemporaryDirectory = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        try? FileManager.default.removeItem(at: temporary)
        return run
    }
}

/// Records the run's problems, a hang, anything left behind, and any ThreadSanitizer report from the child.
private func expectCleanRun(_ run: PipelineRun, sourceLocation: SourceLocation = #_sourceLocation) {
    for problem in run.problems { Issue.record("\(problem)\noutput:\n\(run.output)", sourceLocation: sourceLocation) }
    if run.termination == nil, run.problems.isEmpty {
        Issue.record("the example did not exit\noutput:\n\(run.output)", sourceLocation: sourceLocation)
    }
    #expect(!run.output.contains("ThreadSanitizer"), sourceLocation: sourceLocation)
    #expect(run.leftInTemporaryDirectory == [], "output:\n\(run.output)", sourceLocation: sourceLocation)
    #expect(run.liveProcessGroups == [], "output:\n\(run.output)", sourceLocation: sourceLocation)
}

/// The ProcessPipeline example as a real process: its output and exit status, and a SIGINT or SIGTERM mid-run.
@Suite(.timeLimit(.minutes(2)))
struct ProcessPipelineExampleTests {

    @Test func itGeneratesCompressesAndChecksumsThenRemovesItsDirectory() async {
        let run = await runPipeline([])
        expectCleanRun(run)
        #expect(run.termination == .exited(0), "output:\n\(run.output)")
        let lines = run.lines
        for stage in ["generate", "compress", "checksum", "verify"] {
            #expect(lines.contains { $0.hasPrefix("\(stage): started ") }, "\(stage)\noutput:\n\(run.output)")
            #expect(lines.contains("\(stage): done"), "\(stage)\noutput:\n\(run.output)")
        }
        #expect(run.stagePIDs.count == 4)
        #expect(lines.contains("data.bin: \(4 * 1024 * 1024) bytes"))
        let digest = lines.first { $0.hasPrefix("sha256(data.bin.gz): ") }?.dropFirst("sha256(data.bin.gz): ".count)
        #expect(digest.map { $0.count == 64 && $0.allSatisfy(\.isHexDigit) } == true, "output:\n\(run.output)")
        #expect(lines.contains { $0.hasPrefix("removed ") })
        #expect(lines.last?.hasPrefix("done in ") == true)
    }

    @Test(arguments: [SIGINT, SIGTERM])
    func aSignalMidRunCancelsTheStagesRemovesTheDirectoryAndExitsWithItsStatus(_ signal: Int32) async {
        // 2 GiB: generating and compressing take far longer than the hang timeout, so only the signal ends the run.
        let run = await runPipeline(["2G"]) { child, problems in
            guard child.waitForOutput(containing: "generate: started ", timeout: hangTimeout) else {
                problems.append("the first stage never started")
                return
            }
            child.send(signal)
        }
        expectCleanRun(run)
        #expect(run.termination == .exited(128 + signal), "output:\n\(run.output)")
        let name = signal == SIGINT ? "SIGINT" : "SIGTERM"
        #expect(run.output.contains("ProcessPipeline: interrupted by \(name): cancelled the pipeline"))
        let lines = run.lines
        for stage in ["generate", "compress", "checksum", "verify"] {
            #expect(lines.contains("\(stage): cancelled"), "\(stage)\noutput:\n\(run.output)")
        }
        #expect(!lines.contains { $0.hasPrefix("removed ") || $0.hasPrefix("done in ") })
    }

    @Test func helpPrintsTheUsageAndExitsZero() async {
        let run = await runPipeline(["--help"])
        expectCleanRun(run)
        #expect(run.termination == .exited(0))
        #expect(run.output.hasPrefix("usage: ProcessPipeline [SIZE]"))
    }

    @Test func aBadSizeIsAUsageError() async {
        let run = await runPipeline(["4X"])
        expectCleanRun(run)
        #expect(run.termination == .exited(64))
        #expect(run.output.contains("ProcessPipeline: SIZE is a number of bytes"))
    }

    @Test(
        arguments: [
            ([], 4 << 20), (["0"], 0), (["4096"], 4096), (["512K"], 512 << 10), (["2m"], 2 << 20), (["3G"], 3 << 30),
            (["1T"], 1 << 40),
        ] as [([String], Int)])
    func sizes(_ arguments: [String], _ bytes: Int) throws {
        #expect(try Options.parse(arguments).size == bytes)
    }

    @Test(arguments: [["K"], ["-4"], ["4.5M"], ["2T"], ["4M", "8M"], ["--size"], ["٣"]])
    func badCommandLines(_ arguments: [String]) {
        #expect(throws: Options.UsageError.self) { try Options.parse(arguments) }
    }
}
