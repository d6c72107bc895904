import Foundation
import PKCore
import PKProcess
import PKTesting
import Testing

/// Many short processes through one queue.
@Suite struct ManyProcessesTests {

    @Test func twoHundredShortProcessesThroughAQueueOfWidthEightAllSucceed() async throws {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 8
        let tracker = ConcurrencyTracker()
        let leaks = LeakCheck()
        var procedures: [ProcessProcedure] = []
        for index in 0..<200 {
            let procedure = ProcessProcedure(
                command: "sh", arguments: ["-c", "echo \(index)"], standardOutput: .capture(),
                processDidLaunch: { _ in tracker.enter() })
            procedure.addDidFinishBlockObserver { _, _ in tracker.leave() }
            procedures.append(procedure)
        }
        leaks.track(procedures)
        let results = await queue.results(of: procedures)
        for (index, result) in results.enumerated() {
            #expect(try result.get().standardOutputText == "\(index)")
        }
        #expect(tracker.entered == 200)
        #expect(tracker.maxConcurrent <= 8)
        procedures.removeAll()
        #expect(await leaks.unreleased().isEmpty, "finished process procedures are released")
        _ = results
    }
}
