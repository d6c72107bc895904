import Foundation
import PKCore
import PKProcess
import PKTesting
import Testing

/// Standard input from data, a file, another procedure and another process.
@Suite struct StandardInputTests {
    let queue = ProcedureQueue()

    @Test func dataIsWrittenAndThenEndOfFile() async throws {
        let procedure = ProcessProcedure(
            command: "wc", arguments: ["-c"], standardInput: .string("hello, world"), standardOutput: .capture())
        #expect(try await queue.run(procedure).standardOutputText.trimmingCharacters(in: .whitespaces) == "12")
    }

    @Test func largeInputIsStreamedWithoutBlocking() async throws {
        // 2 MiB, far more than a pipe holds (64 KiB), of a pattern that shows any byte out of place.
        let pattern = Data((0..<251).map { UInt8($0) })
        var input = Data(capacity: 2 << 20)
        while input.count < 2 << 20 { input.append(pattern) }
        let procedure = ProcessProcedure(
            command: "cat", standardInput: .data(input), standardOutput: .capture(limit: 16 << 20))
        #expect(try await queue.run(procedure).standardOutput == input)
    }

    @Test func aChildThatStopsReadingEarlyIsNotAnError() async throws {
        // `head` exits after one byte, closing the pipe: our write gets EPIPE (and a SIGPIPE, taken, not fatal).
        let procedure = ProcessProcedure(
            command: "head", arguments: ["-c", "1"], standardInput: .data(Data(count: 8 << 20)),
            standardOutput: .capture())
        #expect(try await queue.run(procedure).standardOutput == Data(count: 1))
    }

    @Test func aFileIsGivenToTheChild() async throws {
        let directory = try TemporaryDirectory()
        let file = directory.url.appendingPathComponent("in.txt")
        try "from a file\n".write(to: file, atomically: true, encoding: .utf8)
        let procedure = ProcessProcedure(command: "cat", standardInput: .file(file), standardOutput: .capture())
        #expect(try await queue.run(procedure).standardOutputText == "from a file")
    }

    @Test func nullReadsEndOfFileAtOnce() async throws {
        let procedure = ProcessProcedure(command: "cat", standardInput: .null, standardOutput: .capture())
        #expect(try await queue.run(procedure).standardOutput.isEmpty)
    }

    @Test func ProcedureKitsAnyInputAcceptsData() async throws {
        let procedure = ProcessProcedure(
            launchPath: "/bin/cat", standardInput: Data("raw data".utf8),
            standardOutput: ProcessOutputDestination.capture())
        #expect(try await queue.run(procedure).standardOutputText == "raw data")
    }

    @Test func inputIsInjectedFromAProcedureOutput() async throws {
        let producer = ResultProcedure { Data("injected\n".utf8) }
        let consumer = ProcessProcedure(command: "tr", arguments: ["a-z", "A-Z"], standardOutput: .capture())
        consumer.injectStandardInput(from: producer)
        queue.addOperation(producer)
        #expect(try await queue.run(consumer).standardOutputText == "INJECTED")
    }

    @Test func processesFormAPipelineStageByStage() async throws {
        let generate = ProcessProcedure(command: "seq", arguments: ["1", "100"], standardOutput: .capture())
        let sum = ProcessProcedure(command: "paste", arguments: ["-sd+"], standardOutput: .capture())
            .injectStandardInput(from: generate)
        let total = ProcessProcedure(
            command: "sh", arguments: ["-c", "read sum; echo $(($sum))"], standardOutput: .capture()
        ).injectStandardInput(from: sum)
        queue.addOperations([generate, sum], waitUntilFinished: false)
        #expect(try await queue.run(total).standardOutputText == "5050")
    }

    @Test func aFailedStageCancelsTheNextWithoutLaunchingIt() async throws {
        let failing = ProcessProcedure(command: "sh", arguments: ["-c", "exit 4"], standardOutput: .capture())
        let next = ProcessProcedure(command: "cat", standardOutput: .capture()).injectStandardInput(from: failing)
        queue.addOperation(failing)
        _ = await queue.outcome(of: next)
        #expect(next.isCancelled)
        #expect(next.processIdentifier == 0)
    }
}
