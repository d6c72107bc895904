import Foundation
import PKTesting
import Testing

@testable import PKCore

/// The Swift Concurrency guide's snippets, as written there (with the few names they assume defined here).
@Suite(.timeLimit(.minutes(1)))
struct SwiftConcurrencyGuideTests {

    /// What the fan-out snippet fetches.
    struct Record: Sendable, Equatable { let id: Int }

    /// A store whose record 7 times out and record 13 fails.
    struct Store: Sendable {
        func record(_ id: Int) async throws -> Record {
            if id == 7 { throw ProcedureKitError.timedOut(with: .by(1)) }
            if id == 13 { throw TestError() }
            return Record(id: id)
        }
    }

    /// What the error snippet's `combine` outputs.
    struct Report: Sendable { let total: Int }

    @Test func theClosureTableExample() async throws {
        // --- guide: which types take which closures
        let queue = ProcedureQueue()
        let numbers = ResultProcedure { [3, 1, 2] }
        let doubled = AsyncTransformProcedure<[Int], [Int]> { input in
            try await Task.sleep(for: .milliseconds(1))
            return input.map { $0 * 2 }
        }
        doubled.injectResult(from: numbers)
        queue.add(procedure: numbers)
        let result: [Int] = try await queue.run(doubled)  // [6, 2, 4]
        // --- end
        #expect(result == [6, 2, 4])
    }

    @Test func theFanOutExample() async {
        let store = Store()
        var lines: [String] = []
        func print(_ line: String) { lines.append(line) }
        // --- guide: fan-out
        let fetches = (1...20).map { id in AsyncResultProcedure { try await store.record(id) } }
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 4  // at most 4 at a time
        for await outcome in queue.outcomes(of: fetches) {
            switch outcome.result {
            case .success(let record): print("#\(outcome.index): \(record)")
            case .failure(let error) where error.isTimeout: print("#\(outcome.index) timed out")
            case .failure(let error): print("#\(outcome.index) failed: \(error)")
            }
        }
        // --- end
        #expect(lines.count == 20)
        #expect(lines.contains("#6 timed out"))
        #expect(lines.contains { $0.hasPrefix("#12 failed: TestError(") })
        #expect(lines.contains("#0: Record(id: 1)"))

    }

    @Test func theResultsExample() async {
        let store = Store()
        let queue = ProcedureQueue()
        let fetches = (1...20).map { id in AsyncResultProcedure { try await store.record(id) } }
        // --- guide: results
        let results = await queue.results(of: fetches)  // [Result<Record, any Error>]
        let records = results.compactMap { try? $0.get() }
        // --- end
        #expect(records.count == 18)
        #expect(results[6].error?.isTimeout == true)
    }

    @Test func theErrorsExample() async throws {
        let queue = ProcedureQueue()
        let load = ResultProcedure<Int> { throw ProcedureKitError.timedOut(with: .by(2)) }
        let combine = TransformProcedure<Int, Report> { Report(total: $0) }
        combine.injectResult(from: load)
        queue.add(procedure: load)
        var lines: [String] = []
        func print(_ line: Any) { lines.append(String(describing: line)) }
        // --- guide: errors
        do {
            let report: Report = try await queue.run(combine)
            print(report)
        } catch  where error.isTimeout {
            print("timed out: \(error.rootCauses)")
        } catch  where error.isDependencyFailure {
            print("an input failed: \(error.rootCauses)")
        } catch  where error.isCancellation {
            print("cancelled")
        }
        // --- end
        #expect(lines == ["timed out: [Timed out (for 2.0 seconds)]"])
    }

    @Test func theWaitingExample() async {
        let queue = ProcedureQueue()
        queue.name = "pipeline"
        queue.maxConcurrentOperationCount = 4
        // --- guide: stranded dependencies
        queue.strandedDependencyPolicy = .cancel(after: .seconds(2))
        // --- end
        #expect(queue.strandedDependencyPolicy == .cancel(after: .seconds(2)))
        // The report below must not depend on how fast a loaded machine gets there.
        queue.strandedDependencyPolicy = .ignore
        let (started, signalStarted) = AsyncStream<Void>.makeStream()
        let (release, releaseTransform) = AsyncStream<Void>.makeStream()
        let transform = AsyncBlockProcedure {
            signalStarted.yield()
            for await _ in release { break }
        }
        transform.name = "Transform"
        let load = BlockProcedure {}
        load.name = "Load"
        let combine = BlockProcedure {}
        combine.name = "Combine"
        combine.addDependencies(load, transform)
        queue.add(procedures: [transform, combine])
        for await _ in started { break }
        // --- guide: the wait report
        print(queue.waitReport())
        // Queue "pipeline": 1 running of at most 4, 1 waiting
        // - Transform: executing
        // - Combine: waiting for dependencies: Load (on no queue), Transform (executing)
        // --- end
        let text = queue.waitReport().description
        #expect(
            Set(text.split(separator: "\n").map(String.init))
                == [
                    "Queue \"pipeline\": 1 running of at most 4, 1 waiting",
                    "- Transform: executing",
                    "- Combine: waiting for dependencies: Load (on no queue), Transform (executing)",
                ])
        queue.add(procedure: load)
        releaseTransform.yield()
        await combine.waitUntilFinished()
        PKExpectProcedureFinished(combine)
    }
}
