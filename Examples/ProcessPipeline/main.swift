// A pipeline of the system's tools, each stage a ProcessProcedure on a ProcedureQueue, handing the next one a file
// in a temporary directory: `head -c SIZE /dev/urandom` writes random bytes to data.bin, `gzip` compresses that file
// (opened as its standard input) into data.bin.gz, then `sha256sum` checksums the archive (its output captured) while
// `gzip -t` tests it. A stage runs once the stage before it has succeeded; the two last run side by side. Run it with
// `swift run ProcessPipeline [SIZE]` (4 MiB by default; `--help` lists the rest).
//
// Output (standard output): a line per stage started (with its pid) and ended, then the sizes, the checksum, the
// directory removed and the time taken; on a terminal, a progress bar (a step per stage) instead of the stage lines.
// Ctrl-C (SIGINT) or SIGTERM cancels the queue: each running stage's process group gets SIGTERM, the directory is
// removed, and the program says so on standard error and exits with 128 + the signal's number (130 for SIGINT).
// Exit status: 0 when every stage succeeded, 1 when one failed, 64 for a bad command line.
import Foundation
import PKCore
import PKObservers
import PKProcess

/// Writes `line` and a newline to standard output in one unbuffered write, so that a parent reading a pipe sees each
/// line at once and lines from different threads (the stages' supervising threads, the queue's) do not interleave.
func say(_ line: String) {
    write(line + "\n", to: STDOUT_FILENO)
}

/// ``say(_:)`` for standard error.
func warn(_ line: String) {
    write(line + "\n", to: STDERR_FILENO)
}

/// Writes `text` to `descriptor`, best effort: a reader that went away (`ProcessPipeline | head -1`) must not stop
/// the pipeline before it has cleaned up, so a failed write is dropped (`FileHandle.write` would trap on it).
func write(_ text: String, to descriptor: Int32) {
    var bytes = Array(text.utf8)[...]
    while !bytes.isEmpty {
        let written = bytes.withUnsafeBytes { Foundation.write(descriptor, $0.baseAddress, $0.count) }
        if written < 0, errno == EINTR { continue }
        guard written > 0 else { return }
        bytes = bytes.dropFirst(written)
    }
}

/// A directory of our own (mode 0700) in the system's temporary directory (`TMPDIR`, else `/tmp`).
func makeTemporaryDirectory() throws -> URL {
    let template = FileManager.default.temporaryDirectory.appendingPathComponent("ProcessPipeline.XXXXXX").path
    var path = Array(template.utf8CString)
    let made = path.withUnsafeMutableBufferPointer { mkdtemp($0.baseAddress!) != nil }
    guard made else { throw POSIXError(POSIXErrorCode(rawValue: errno) ?? .EIO) }
    return URL(fileURLWithPath: path.withUnsafeBufferPointer { String(cString: $0.baseAddress!) }, isDirectory: true)
}

let options: Options
do {
    options = try Options.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    warn("ProcessPipeline: \(error)\n\n\(Options.usage)")
    exit(64)
}
if options.showHelp {
    say(Options.usage)
    exit(0)
}
let started = ContinuousClock.now

// A reader of our output that goes away must not kill us with SIGPIPE before the directory is removed: writes then
// fail instead, and are dropped. The stages are not affected: a ProcessProcedure's child starts with every signal's
// default action.
signal(SIGPIPE, SIG_IGN)

// The program opts in to SIGINT and SIGTERM before it starts anything: from here on they request a shutdown from
// the coordinator, which tells the handler installed below, instead of killing this process and leaving the
// directory behind. The stages lead process groups of their own, so a terminal's Ctrl-C reaches this process only;
// they hear of it through their cancellation.
let coordinator = ShutdownCoordinator()
coordinator.handleSignals([SIGINT, SIGTERM])

let directory: URL
do {
    directory = try makeTemporaryDirectory()
} catch {
    warn("ProcessPipeline: cannot make a temporary directory: \(error)")
    exit(1)
}
let data = directory.appendingPathComponent("data.bin")
let archive = directory.appendingPathComponent("data.bin.gz")
let size = options.size
say("ProcessPipeline: \(size) random bytes through head, gzip and sha256sum in \(directory.path)")

// A progress bar only for a person watching: each stage weighs one step, and shows as the bar's message while it
// runs. Otherwise (a pipe, a file, a CI log) a line per stage started and ended.
let onTerminal = isatty(STDOUT_FILENO) == 1
let queue = ProcedureQueue(name: "ProcessPipeline")
let bar =
    onTerminal
    ? TerminalProgressBar(monitoring: ProgressMonitor(queue), title: "pipeline", fileDescriptor: STDOUT_FILENO) : nil

/// A stage: `command` (looked for in `PATH`) run in the directory, its standard error streamed to ours line by line
/// (which also puts its last lines into the error the stage fails with).
func stage(
    _ name: String, _ command: String, _ arguments: [String], what: String, input: ProcessInputSource = .null,
    output: ProcessOutputDestination = .discard
) -> ProcessProcedure {
    let procedure = ProcessProcedure(
        command: command, arguments: arguments, currentDirectoryURL: directory, standardInput: input,
        standardOutput: output, standardError: .lines { warn("\(name): \($0)") },
        processDidLaunch: { procedure in
            // On the stage's supervising thread, once the process runs.
            procedure.reportProgress(fractionCompleted: 0, message: "\(name) (pid \(procedure.processIdentifier))")
            if !onTerminal { say("\(name): started \(what) (pid \(procedure.processIdentifier))") }
        })
    procedure.name = name
    // The stages never read the terminal: each leads a process group of its own even when this program runs in a
    // terminal's foreground, so that Ctrl-C reaches this program alone, which cancels them.
    procedure.usesOwnProcessGroup = true
    // Cancelled, a stage's process group has this long between SIGTERM and SIGKILL.
    procedure.terminationGracePeriod = .seconds(2)
    procedure.addDidFinishBlockObserver { procedure, errors in
        guard !onTerminal else { return }
        if procedure.isCancelled {
            say("\(name): cancelled")
        } else if errors.isEmpty {
            say("\(name): done")
        } else {
            say("\(name): failed")
        }
    }
    return procedure
}

/// Makes `stage` wait for `previous`, and run only if it succeeded: `inject(dependency:)` adds the dependency and
/// applies result injection's rule (a dependency that failed or was cancelled cancels the procedure before it
/// executes), with nothing to inject, since the stages hand each other files rather than values.
func run(_ stage: ProcessProcedure, after previous: ProcessProcedure) {
    stage.inject(dependency: previous) { _, _ in }
}

let generate = stage(
    "generate", "head", ["-c", "\(size)", "/dev/urandom"], what: "head -c \(size) /dev/urandom > data.bin",
    output: .file(data))
let compress = stage(
    "compress", "gzip", ["-c", "-n"], what: "gzip -c -n < data.bin > data.bin.gz", input: .file(data),
    output: .file(archive))
let checksum = stage(
    "checksum", "sha256sum", ["data.bin.gz"], what: "sha256sum data.bin.gz", output: .capture(limit: 4096))
let verify = stage("verify", "gzip", ["-t", "data.bin.gz"], what: "gzip -t data.bin.gz")
run(compress, after: generate)
run(checksum, after: compress)
run(verify, after: compress)
let stages = [generate, compress, checksum, verify]

queue.add(procedures: stages)

// Blocks until every stage has finished. A shutdown request (the first SIGINT or SIGTERM) calls the handler on the
// coordinator's signal queue meanwhile: cancelling the queue cancels each stage, and a running stage's process group
// gets SIGTERM; a stage finishes only once its process is reaped and its group is empty, so when the wait returns
// nothing is left running.
coordinator.withShutdownHandler {
    queue.waitUntilAllOperationsAreFinished()
} onShutdownRequested: {
    queue.cancelAllOperations()
}
bar?.finish()

/// Removes the directory and what the stages wrote into it.
func removeDirectory() {
    do {
        try FileManager.default.removeItem(at: directory)
    } catch {
        warn("ProcessPipeline: could not remove \(directory.path): \(error)")
    }
}

if coordinator.isShutdownRequested {
    // Nothing is watched by the coordinator, so the report is ready at once: it says which signal it was.
    let report = coordinator.syncWaitForShutdown()
    removeDirectory()
    let status: Int32 = if case .signal(let number) = report.reason { 128 + number } else { 1 }
    warn(
        "ProcessPipeline: interrupted by \(report.reason): cancelled the pipeline, its running processes were "
            + "sent SIGTERM, and removed \(directory.path)")
    exit(status)
}

// The first stage that failed of itself (the stages after it were cancelled because of it).
if let failed = stages.first(where: { !$0.isCancelled && $0.error != nil }), let error = failed.error {
    removeDirectory()
    warn("ProcessPipeline: \(failed.procedureName) failed: \(error)")
    exit(1)
}

let result = try? checksum.output.value?.get()
let digest = result?.standardOutputText.split(separator: " ").first.map(String.init) ?? "?"
func bytes(of url: URL) -> Int {
    ((try? FileManager.default.attributesOfItem(atPath: url.path))?[.size] as? NSNumber)?.intValue ?? 0
}
let (dataBytes, archiveBytes) = (bytes(of: data), bytes(of: archive))
let ratio = dataBytes == 0 ? 0 : Double(archiveBytes) / Double(dataBytes) * 100
say("data.bin: \(dataBytes) bytes")
say("data.bin.gz: \(archiveBytes) bytes (\(String(format: "%.1f", ratio))% of data.bin; random bytes do not compress)")
say("sha256(data.bin.gz): \(digest)")
say("gzip -t: the archive is sound")
removeDirectory()
say("removed \(directory.path)")
let elapsed = started.duration(to: .now)
let milliseconds = elapsed.components.seconds * 1000 + elapsed.components.attoseconds / 1_000_000_000_000_000
say("done in \(milliseconds) ms")
