import Foundation
import PKCore
import PKObservers
import PKProcess
import PKTesting
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// FIFOs as `.file` streams: the child is launched once the FIFO's other end is there, as a shell's `<` and `>`
/// launch it, and a cancel or a time limit ends the wait (a plain `open` would block the supervisor for ever).
@Suite struct FIFOStreamTests {
    let queue = ProcedureQueue()

    /// A FIFO in a temporary directory (kept alive by the returned directory).
    private func makeFIFO() throws -> (TemporaryDirectory, URL) {
        let directory = try TemporaryDirectory()
        let fifo = directory.url.appendingPathComponent("fifo")
        try #require(mkfifo(fifo.path, 0o600) == 0)
        return (directory, fifo)
    }

    /// Opens `fifo` non-blocking for `flags`, retrying while it has no other end (up to the usual generous wait).
    private func openWhenPossible(_ fifo: URL, _ flags: Int32) async -> Int32 {
        var descriptor: Int32 = -1
        _ = await ProcessInspection.eventually {
            descriptor = open(fifo.path, flags | O_NONBLOCK | O_CLOEXEC)
            return descriptor >= 0
        }
        if descriptor >= 0 { _ = fcntl(descriptor, F_SETFL, fcntl(descriptor, F_GETFL) & ~O_NONBLOCK) }
        return descriptor
    }

    /// Whether `procedure` finished (within the usual generous wait); if not, releases its supervisor from an
    /// `open` it may be blocked in by opening the FIFO's other end, so that the test run can end.
    private func finishes(_ procedure: ProcessProcedure, releasing fifo: URL, with flags: Int32) async -> Bool {
        let finished = await ProcessInspection.eventually { procedure.isFinished }
        if !finished {
            let release = open(fifo.path, flags | O_NONBLOCK)
            if release >= 0 { close(release) }
        }
        return finished
    }

    @Test func aFIFOForOutputIsOpenedOnceAReaderOpensIt() async throws {
        let (directory, fifo) = try makeFIFO()
        let procedure = ProcessProcedure(
            command: "echo", arguments: ["through a FIFO"], standardOutput: .file(fifo))
        queue.addOperation(procedure)
        #expect(procedure.processIdentifier == 0, "nothing reads the FIFO yet: nothing is launched")
        let read = await onThreadOfItsOwn {
            FileHandle(forReadingAtPath: fifo.path).map { String(decoding: $0.readDataToEndOfFile(), as: UTF8.self) }
        }
        await procedure.waitUntilFinished()
        #expect(read == "through a FIFO\n")
        #expect(procedure.errors.isEmpty)
        withExtendedLifetime(directory) {}
    }

    @Test func aTimeLimitEndsTheWaitForAFIFOsReader() async throws {
        let (directory, fifo) = try makeFIFO()
        let procedure = ProcessProcedure(command: "echo", arguments: ["unread"], standardOutput: .file(fifo))
        procedure.addObserver(TimeoutObserver(by: .milliseconds(100)))
        queue.addOperation(procedure)
        #expect(await finishes(procedure, releasing: fifo, with: O_RDONLY))
        #expect(procedure.isCancelled)
        #expect(
            procedure.errors.contains { error in
                guard let error = error as? ProcedureKitError, case .timedOut = error.context else { return false }
                return true
            })
        #expect(procedure.processIdentifier == 0, "nothing was launched")
        withExtendedLifetime(directory) {}
    }

    @Test func aFIFOForInputIsReadOnceAWriterHasWrittenToIt() async throws {
        let (directory, fifo) = try makeFIFO()
        let procedure = ProcessProcedure(command: "cat", standardInput: .file(fifo), standardOutput: .capture())
        queue.addOperation(procedure)
        let writer = await openWhenPossible(fifo, O_WRONLY)
        try #require(writer >= 0)
        _ = "hello through a FIFO".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        await procedure.waitUntilFinished()
        #expect(procedure.output.success?.standardOutputText == "hello through a FIFO")
        withExtendedLifetime(directory) {}
    }

    @Test func theChildIsLaunchedOnceAWriterOpensTheFIFOBeforeItWritesAnything() async throws {
        // A conversation where the child speaks first: the writer waits for the child before writing.
        let (directory, fifo) = try makeFIFO()
        let procedure = ProcessProcedure(
            command: "sh", arguments: ["-c", "echo ready; cat"], standardInput: .file(fifo), standardOutput: .capture())
        queue.addOperation(procedure)
        let writer = await openWhenPossible(fifo, O_WRONLY)
        try #require(writer >= 0)
        let launched = await ProcessInspection.eventually { procedure.processIdentifier > 0 }
        #expect(launched, "the child is launched while the writer has written nothing")
        _ = "answer".withCString { write(writer, $0, strlen($0)) }
        close(writer)
        #expect(await finishes(procedure, releasing: fifo, with: O_WRONLY))
        #expect(procedure.output.success?.standardOutputText == "ready\nanswer")
        withExtendedLifetime(directory) {}
    }

    @Test func cancellingEndsTheWaitForAFIFOsWriter() async throws {
        let (directory, fifo) = try makeFIFO()
        let procedure = ProcessProcedure(command: "cat", standardInput: .file(fifo), standardOutput: .capture())
        queue.addOperation(procedure)
        try await Task.sleep(for: .milliseconds(100))  // so that the cancel most likely finds it waiting
        procedure.cancel()
        #expect(await finishes(procedure, releasing: fifo, with: O_WRONLY))
        #expect(procedure.isCancelled)
        #expect(procedure.errors.isEmpty)
        #expect(procedure.processIdentifier == 0, "nothing was launched")
        withExtendedLifetime(directory) {}
    }

    @Test func aTimeLimitEndsTheWaitForAFIFOsWriter() async throws {
        let (directory, fifo) = try makeFIFO()
        let procedure = ProcessProcedure(command: "cat", standardInput: .file(fifo), standardOutput: .capture())
        procedure.addObserver(TimeoutObserver(by: .milliseconds(100)))
        queue.addOperation(procedure)
        #expect(await finishes(procedure, releasing: fifo, with: O_WRONLY))
        #expect(procedure.isCancelled)
        #expect(procedure.processIdentifier == 0, "nothing was launched")
        withExtendedLifetime(directory) {}
    }
}
