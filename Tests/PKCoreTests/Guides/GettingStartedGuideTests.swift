import Foundation
import PKCore
import PKTesting
import Synchronization
import Testing

// The code of the article "Getting Started" (PKCore.docc/GettingStarted.md), as written there, so that it compiles
// and runs: keep the two in step (Scripts/docs.sh checks that every example of the article is in a test). The
// article's types and functions are private here, and its statements are in the tests, after the names they assume.

// "Write a procedure"

private final class SayHello: Procedure, @unchecked Sendable {
    override func execute() {
        print("Hello World")
        finish()
    }
}

private final class CountWords: Procedure, @unchecked Sendable {
    // @unchecked Sendable: `count` is behind its Mutex; `text` is immutable.
    let text: String
    private let count = Mutex(0)

    init(text: String) {
        self.text = text
        super.init()
        name = "count words"
    }

    var wordCount: Int { count.withLock { $0 } }

    override func execute() {
        let words = text.split(separator: " ").count
        count.withLock { $0 = words }
        finish()
    }
}

// "Ready-made procedures"

private final class FetchGreeting: AsyncProcedure, @unchecked Sendable {
    override func run() async throws {
        try await Task.sleep(for: .milliseconds(10))
        log.info("fetched")
    }
}

// "Use it from async code"

private func greet(on queue: ProcedureQueue) async throws {
    try await queue.run(SayHello())
    try await queue.run(AsyncBlockProcedure { try await Task.sleep(for: .milliseconds(5)) })
}

private final class MakeNumber: Procedure, OutputProcedure, @unchecked Sendable {
    // @unchecked Sendable: `stored` is behind its Mutex.
    private let stored = Mutex<Pending<ProcedureResult<Int>>>(.pending)
    var output: Pending<ProcedureResult<Int>> {
        get { stored.withLock { $0 } }
        set { stored.withLock { $0 = newValue } }
    }

    override func execute() {
        finish(withResult: .success(42))
    }
}

private func number(on queue: ProcedureQueue) async throws -> Int {
    let value: Int = try await queue.run(MakeNumber())
    return value
}

@Suite(.timeLimit(.minutes(1)))
struct GettingStartedGuideTests {

    @Test func runItOnAQueue() {
        let queue = ProcedureQueue(name: "work", maxConcurrentOperationCount: 4)
        let counter = CountWords(text: "the quick brown fox")
        queue.add(procedure: counter)
        queue.waitUntilAllOperationsAreFinished()
        print(counter.wordCount)  // 4
        // End of the article's example.
        #expect(counter.wordCount == 4)
        #expect(counter.procedureName == "count words")
    }

    @Test func chainProceduresWithDependencies() async {
        let queue = ProcedureQueue()
        let fetch = BlockProcedure { print("fetch") }
        let parse = BlockProcedure { print("parse") }
        let index = BlockProcedure { print("index") }
        let report = BlockProcedure { print("report") }
        parse.addDependency(fetch)
        index.addDependency(fetch)
        report.addDependencies(parse, index)  // fan-in
        queue.add(procedures: fetch, parse, index, report)
        // End of the article's example.
        await report.waitUntilFinished()
        #expect(fetch.isFinished && parse.isFinished && index.isFinished)
        PKExpectProcedureFinished(report)
    }

    @Test func readyMadeProcedures() async throws {
        let queue = ProcedureQueue()
        let resize = BlockProcedure {
            guard FileManager.default.fileExists(atPath: "/tmp/photo.jpg") else {
                throw CocoaError(.fileNoSuchFile)
            }
        }
        // End of the article's example.
        queue.add(procedure: resize)
        await resize.waitUntilFinished()
        #expect(resize.failed == !FileManager.default.fileExists(atPath: "/tmp/photo.jpg"))
        try await queue.run(FetchGreeting())
    }

    @Test func seeHowItEnded() {
        let queue = ProcedureQueue()
        let failing = BlockProcedure { throw CocoaError(.fileReadNoPermission) }
        queue.add(procedure: failing)
        queue.waitUntilAllOperationsAreFinished()
        print(failing.status, failing.errors.count)  // failed 1
        // End of the article's example.
        #expect(failing.status == .failed)
        #expect(failing.errors.count == 1)
    }

    @Test func useItFromAsyncCode() async throws {
        let queue = ProcedureQueue()
        try await greet(on: queue)
        #expect(try await number(on: queue) == 42)
    }
}
