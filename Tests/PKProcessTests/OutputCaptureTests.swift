import Foundation
import PKCore
import PKProcess
import PKTesting
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Standard output and error captured, streamed as lines and logged, with their bounds, from real children.
@Suite struct OutputCaptureTests {
    let queue = ProcedureQueue()

    @Test func capturesStandardOutputAndErrorSeparately() async throws {
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo out; echo err >&2; printf 'no newline'"],
            standardOutput: .capture(), standardError: .capture())
        let result = try await queue.run(procedure)
        #expect(String(decoding: result.standardOutput, as: UTF8.self) == "out\nno newline")
        #expect(String(decoding: result.standardError, as: UTF8.self) == "err\n")
        #expect(result.status == 0)
        #expect(result.reason == .exit)
    }

    @Test func standardOutputTextDropsOneTrailingNewline() async throws {
        let procedure = ProcessProcedure(
            command: "printf", arguments: ["a\\n\\n"], standardOutput: .capture())
        #expect(try await queue.run(procedure).standardOutputText == "a\n")
    }

    @Test func streamsLinesInOrderWithoutTerminatorsAndTheLastUnterminatedOne() async throws {
        let lines = Mutex<[String]>([])
        let procedure = ProcessProcedure(
            command: "printf", arguments: ["one\\ntwo\\r\\n\\nthree"],
            standardOutput: .lines { line in lines.withLock { $0.append(line) } })
        let result = try await queue.run(procedure)
        #expect(lines.withLock { $0 } == ["one", "two", "", "three"])
        #expect(result.standardOutput.isEmpty)
    }

    @Test func linesAndCaptureCombine() async throws {
        let lines = Mutex<[String]>([])
        let procedure = ProcessProcedure(
            command: "seq", arguments: ["1", "1000"],
            standardOutput: .lines { line in lines.withLock { $0.append(line) } }.capturing())
        let result = try await queue.run(procedure)
        #expect(lines.withLock { $0 } == (1...1000).map(String.init))
        #expect(result.standardOutputText == (1...1000).map(String.init).joined(separator: "\n"))
    }

    @Test func aLineLongerThanTheMaximumIsHandedOverInPieces() async throws {
        let pieces = Mutex<[Int]>([])
        let length = ProcessOutputDestination.maximumLineLength * 2 + 10
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "head -c \(length) /dev/zero | tr '\\0' x; echo; echo short"],
            standardOutput: .lines { line in pieces.withLock { $0.append(line.count) } })
        _ = try await queue.run(procedure)
        let maximum = ProcessOutputDestination.maximumLineLength
        #expect(pieces.withLock { $0 } == [maximum, maximum, 10, 5])
    }

    @Test func aLineOfExactlyTheMaximumEndedByCRLFIsOneLine() async throws {
        let pieces = Mutex<[Int]>([])
        let length = ProcessOutputDestination.maximumLineLength
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "head -c \(length) /dev/zero | tr '\\0' x; printf '\\r\\nnext\\n'"],
            standardOutput: .lines { line in pieces.withLock { $0.append(line.count) } })
        _ = try await queue.run(procedure)
        #expect(pieces.withLock { $0 } == [length, 4])
    }

    @Test func logWritesStandardOutputAtInfoAndStandardErrorAtWarning() async {
        // Log settings are process-wide: the gate keeps other suites (the stress suite turns logging off) out while
        // this runs. The gate blocks, so the block runs on a thread of its own, never holding one of Swift's
        // cooperative threads that other suites' async tests need.
        let writer = TestableLogWriter()
        let errors = await onThreadOfItsOwn { [queue] in
            GlobalLogSettings.with(enabled: true, severity: .verbose) {
                let procedure = ProcessProcedure(
                    command: "sh", arguments: ["-c", "echo to-out; echo to-err >&2"], standardOutput: .log,
                    standardError: .log)
                procedure.log.writer = writer
                queue.addOperation(procedure)
                procedure.waitUntilFinished()
                return procedure.errors.count
            }
        }
        #expect(errors == 0)
        let entries = writer.entries
        #expect(entries.contains { $0.message == "stdout: to-out" && $0.severity == .info })
        #expect(entries.contains { $0.message == "stderr: to-err" && $0.severity == .warning })
    }

    @Test func outputOverTheCaptureLimitIsReadToTheEndAndFailsTheProcedure() async throws {
        // 256 MiB through a 1 MiB limit: memory stays bounded, the child is never blocked on a full pipe.
        let procedure = ProcessProcedure(
            command: "head", arguments: ["-c", "\(256 << 20)", "/dev/zero"], standardOutput: .capture(limit: 1 << 20))
        let outcome = await queue.outcome(of: procedure)
        let error = try #require(outcome.processError)
        #expect(error.code == .outputLimitExceeded)
        #expect(error.status == 0)
        #expect(error.reason == .exit)
        #expect(error.description.contains("\(256 << 20) bytes"))
    }

    @Test(.enabled(if: ProcessInspection.pipesCanGrow(to: 16 << 20), "CAP_SYS_RESOURCE or pipe-max-size ≥ 16 MiB"))
    func everythingAChildLeftInAPipeItGrewIsReadAfterItExits() async throws {
        // The child grows its pipe to 16 MiB (F_SETPIPE_SZ) and writes 12 MiB, then exits. The line handler holds the
        // supervisor on the first line until the child has exited, so that nearly all of it is still in the pipe
        // then: the drain after the exit must read it all, not a fixed 1 MiB.
        let pid = Mutex<pid_t>(0)
        let program = """
            $| = 1; fcntl(STDOUT, 1031, 16 << 20) or die "F_SETPIPE_SZ: $!"; print "first\\n";
            print(("x" x 1023) . "\\n") for 1 .. 12288;
            """
        let procedure = ProcessProcedure(
            command: "perl", arguments: ["-e", program],
            standardOutput: .lines { line in
                guard line == "first" else { return }
                let child = pid.withLock { $0 }
                var waited = 0
                while !ProcessInspection.isOurZombie(child), waited < 60_000 {
                    usleep(1000)
                    waited += 1
                }
            }.capturing(),
            processDidLaunch: { procedure in pid.withLock { $0 = procedure.processIdentifier } })
        let result = try await queue.run(procedure)
        #expect(result.standardOutput.count == 6 + 12 << 20)
        #expect(result.standardOutput.suffix(2) == Data("x\n".utf8))
    }

    @Test func outputAtTheCaptureLimitIsKeptWhole() async throws {
        let procedure = ProcessProcedure(
            command: "head", arguments: ["-c", "4096", "/dev/zero"], standardOutput: .capture(limit: 4096))
        #expect(try await queue.run(procedure).standardOutput == Data(count: 4096))
    }

    @Test func aChildThatClosesStandardOutputEarlyStillRunsToItsEnd() async throws {
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo before; exec 1>&-; sleep 0.1; echo after >&2"],
            standardOutput: .capture(), standardError: .capture())
        let result = try await queue.run(procedure)
        #expect(result.standardOutputText == "before")
        #expect(String(decoding: result.standardError, as: UTF8.self) == "after\n")
    }

    @Test func outputGoesToAFileAndIsDiscarded() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("out.txt")
        _ = try await queue.run(
            ProcessProcedure(command: "echo", arguments: ["first"], standardOutput: .file(file)))
        _ = try await queue.run(
            ProcessProcedure(command: "echo", arguments: ["second"], standardOutput: .file(file, append: true)))
        #expect(try String(contentsOf: file, encoding: .utf8) == "first\nsecond\n")
        let discarded = try await queue.run(
            ProcessProcedure(command: "echo", arguments: ["gone"], standardOutput: .discard))
        #expect(discarded.standardOutput.isEmpty)
    }

    @Test func aPipeGetsEndOfFileWhenTheChildEndsAsWithFoundationProcess() async throws {
        let pipe = Pipe()
        let procedure = ProcessProcedure(
            launchPath: "/bin/sh", arguments: ["-c", "echo through-a-pipe"], standardOutput: pipe)
        _ = try await queue.run(procedure)
        // Our copy of the write end was closed after launch, so reading ends.
        let data = try pipe.fileHandleForReading.readToEnd() ?? Data()
        #expect(String(decoding: data, as: UTF8.self) == "through-a-pipe\n")
    }
}

/// `Pipe` and `FileHandle` streams, as ProcedureKit code passes them.
@Suite struct FoundationStreamTests {
    let queue = ProcedureQueue()

    @Test func theNullDeviceIsDevNull() async throws {
        let procedure = ProcessProcedure(
            launchPath: "/bin/sh", arguments: ["-c", "cat; echo ignored; echo also >&2"],
            standardError: FileHandle.nullDevice, standardInput: FileHandle.nullDevice,
            standardOutput: FileHandle.nullDevice)
        let result = try await queue.run(procedure)
        #expect(result.status == 0)
    }

    @Test func aPipesChildEndIsClosedWhenTheProcedureNeverLaunches() async throws {
        let pipe = Pipe()
        let procedure = ProcessProcedure(launchPath: "/bin/echo", standardOutput: pipe)
        procedure.cancel()
        _ = await queue.outcome(of: procedure)
        #expect(procedure.processIdentifier == 0)
        #expect(Self.writeEndIsClosed(pipe))
    }

    /// Whether nothing holds `pipe`'s write end any more: a non-blocking read then finds the end of the file rather
    /// than nothing to read yet (so a failing test does not hang).
    private static func writeEndIsClosed(_ pipe: Pipe) -> Bool {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        var byte: UInt8 = 0
        return read(descriptor, &byte, 1) == 0
    }

    @Test func aPipeEndGivenToTwoProceduresGoesToOneAndTheOtherIsRefused() async throws {
        // `first` claims the pipe's write end, then waits (its standard error is a FIFO nobody reads yet) while
        // `second`, given the same end, runs: once copied, the end used to go to both or fail with EBADF, depending
        // on which closed it first. Now exactly one launches, whatever the timing.
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        let pipe = Pipe()
        let first = ProcessProcedure(
            command: "echo", arguments: ["first"], standardOutput: .pipe(pipe), standardError: .file(fifo))
        let second = ProcessProcedure(command: "echo", arguments: ["second"], standardOutput: .pipe(pipe))
        queue.addOperation(first)
        try await Task.sleep(for: .milliseconds(100))  // so that `first` most likely holds the end already
        _ = await queue.outcome(of: second)
        let reader = open(fifo.path, O_RDONLY | O_NONBLOCK)  // lets `first` go on
        await first.waitUntilFinished()
        if reader >= 0 { close(reader) }
        let launched = [first, second].filter { $0.processIdentifier > 0 }
        let refused = [first, second].filter { $0.processIdentifier == 0 }
        #expect(launched.count == 1)
        let error = try #require(refused.first?.errors.first as? ProcessProcedure.Error)
        #expect(error.code == .invalidStandardStream)
        #expect(error.detail.contains("given to another ProcessProcedure"))
        // What the launched one wrote, then the end of the file: nothing holds the write end any more.
        var byte: UInt8 = 0
        var read = ""
        while Self.readsWithoutWaiting(pipe, into: &byte) { read.append(Character(UnicodeScalar(byte))) }
        #expect(read == (first.processIdentifier > 0 ? "first\n" : "second\n"))
        #expect(Self.writeEndIsClosed(pipe))
    }

    /// Reads one byte of `pipe` into `byte` if one is there now; `false` at the end of the file or when empty.
    private static func readsWithoutWaiting(_ pipe: Pipe, into byte: inout UInt8) -> Bool {
        let descriptor = pipe.fileHandleForReading.fileDescriptor
        _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) | O_NONBLOCK)
        return read(descriptor, &byte, 1) == 1
    }

    @Test func aPipeEndUsedByAProcedureIsRefusedToTheNext() async throws {
        let pipe = Pipe()
        _ = try await queue.run(ProcessProcedure(command: "echo", arguments: ["one"], standardOutput: .pipe(pipe)))
        let outcome = await queue.outcome(of: ProcessProcedure(command: "echo", standardOutput: .pipe(pipe)))
        let error = try #require(outcome.processError)
        #expect(error.code == .invalidStandardStream)
        #expect(error.detail.contains("standardOutput: this Pipe's write end was given to another ProcessProcedure"))
        #expect(String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self) == "one\n")
    }

    @Test func standardOutputAndErrorMayShareOnePipe() async throws {
        let pipe = Pipe()
        _ = try await queue.run(
            ProcessProcedure(
                launchPath: "/bin/sh", arguments: ["-c", "echo out; echo err >&2"], standardError: pipe,
                standardOutput: pipe))
        #expect(String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self) == "out\nerr\n")
    }

    @Test func aWriteEndSharedAsAFileHandleGoesToEveryChild() async throws {
        let pipe = Pipe()
        let writers = (1...3).map { number in
            ProcessProcedure(
                command: "echo", arguments: ["\(number)"], standardOutput: .fileHandle(pipe.fileHandleForWriting))
        }
        queue.addOperations(writers, waitUntilFinished: false)
        for writer in writers { await writer.waitUntilFinished() }
        try pipe.fileHandleForWriting.close()
        let lines = String(decoding: try pipe.fileHandleForReading.readToEnd() ?? Data(), as: UTF8.self)
        #expect(lines.split(separator: "\n").sorted() == ["1", "2", "3"])
        #expect(writers.allSatisfy { $0.errors.isEmpty })
    }

    @Test func aPipesChildEndIsClosedWhenTheRequestIsRefused() async throws {
        let pipe = Pipe()
        let procedure = ProcessProcedure(launchPath: "/nonexistent/tool", standardOutput: pipe)
        _ = await queue.outcome(of: procedure)
        #expect(Self.writeEndIsClosed(pipe))
    }
}
