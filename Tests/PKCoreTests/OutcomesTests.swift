import Foundation
import PKTesting
import Testing

@testable import PKCore

/// Fan-out with results as they finish: `queue.outcomes(of:)`, `queue.results(of:)` and `gatheredResults()`.
@Suite(.timeLimit(.minutes(1)))
struct OutcomesTests {

    /// A procedure that outputs `value` after yielding `yields` times (so procedures finish in a mixed order), or
    /// fails with `error`.
    static func value(_ value: Int, after yields: Int = 0, error: (any Error)? = nil) -> AsyncResultProcedure<Int> {
        AsyncResultProcedure<Int> {
            for _ in 0..<yields { await Task.yield() }
            if let error { throw error }
            return value
        }
    }

    /// A procedure that waits until it is cancelled.
    static func waitsForCancel() -> AsyncResultProcedure<Int> {
        AsyncResultProcedure<Int> {
            try await Task.sleep(for: .seconds(3600))
            return -1
        }
    }

    @Test func everyOutcomeIsDeliveredOnceWithItsIndexValueOrError() async {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 4
        let error = TestError()
        let procedures = (0..<20).map { index in
            Self.value(index * 10, after: index % 3, error: index % 5 == 0 ? error : nil)
        }
        var seen = Set<Int>()
        for await outcome in queue.outcomes(of: procedures) {
            #expect(seen.insert(outcome.index).inserted, "delivered twice: \(outcome.index)")
            #expect(outcome.procedure === procedures[outcome.index])
            #expect(outcome.procedure.isFinished)
            if outcome.index % 5 == 0 {
                #expect(outcome.error as? TestError == error)
                #expect(outcome.value == nil)
            } else {
                #expect(outcome.value == outcome.index * 10)
            }
        }
        #expect(seen == Set(0..<20))
    }

    @Test func outcomesArriveInTheOrderProceduresFinish() async {
        let queue = ProcedureQueue()
        let first = Self.value(1, after: 50)
        let second = BlockProcedure {}
        second.addDependency(first)
        var order: [Int] = []
        // `second` is given first, yet finishes after `first`, which it depends on.
        for await outcome in queue.outcomes(of: [second, first] as [Procedure]) { order.append(outcome.index) }
        #expect(order == [1, 0])
    }

    @Test func theQueueWidthBoundsHowManyRunAtOnce() async {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 3
        let tracker = ConcurrencyTracker()
        let procedures = (0..<24).map { index in
            AsyncResultProcedure<Int> {
                tracker.enter()
                defer { tracker.leave() }
                await Task.yield()
                return index
            }
        }
        var count = 0
        for await outcome in queue.outcomes(of: procedures) where outcome.value != nil { count += 1 }
        #expect(count == 24)
        #expect(tracker.maxConcurrent <= 3)
    }

    @Test func plainProceduresGiveVoidResultsByTheRulesOfRun() async {
        let queue = ProcedureQueue()
        let error = TestError()
        let ok = BlockProcedure {}
        let failing = BlockProcedure { throw error }
        let cancelled = BlockProcedure {}
        cancelled.cancel()
        var results: [Int: Result<Void, any Error>] = [:]
        for await outcome in queue.outcomes(of: [ok, failing, cancelled]) { results[outcome.index] = outcome.result }
        #expect((try? results[0]?.get()) != nil)
        #expect(results[1]?.error as? TestError == error)
        #expect(results[2]?.error is CancellationError)
    }

    @Test func noProceduresEndsAtOnce() async {
        let queue = ProcedureQueue()
        var count = 0
        for await _ in queue.outcomes(of: [BlockProcedure]()) { count += 1 }
        #expect(count == 0)
    }

    @Test func cancellingTheConsumingTaskCancelsWhatIsLeft() async {
        let queue = ProcedureQueue()
        let quick = Self.value(1)
        let slow = (0..<5).map { _ in Self.waitsForCancel() }
        let all = [quick] + slow
        let taken = PKMutex(0)
        let (gotFirst, signalFirst) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            for await _ in queue.outcomes(of: all) {
                taken.withLock { $0 += 1 }
                signalFirst.yield()
            }
        }
        for await _ in gotFirst { break }
        consumer.cancel()
        await consumer.value
        for procedure in slow {
            await procedure.waitUntilFinished()
            PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.taskCancelled())
        }
        #expect(taken.withLock { $0 } == 1)
        PKExpectProcedureFinished(quick)
    }

    @Test func breakingOutOfTheLoopCancelsWhatIsLeft() async {
        let queue = ProcedureQueue()
        let quick = Self.value(1)
        let slow = (0..<3).map { _ in Self.waitsForCancel() }
        for await outcome in queue.outcomes(of: [quick] + slow) {
            #expect(outcome.index == 0)
            break
        }
        for procedure in slow {
            await procedure.waitUntilFinished()
            PKExpectProcedureCancelledWithError(procedure, ProcedureKitError.taskCancelled())
        }
    }

    @Test func finishedProceduresAndTheSequenceAreReleased() async {
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            let procedures = (0..<10).map { Self.value($0) }
            leaks.track(procedures)
            for await _ in queue.outcomes(of: procedures) {}
        }
        #expect(await leaks.unreleased() == [])
    }

    // MARK: - results(of:)

    @Test func resultsKeepTheOrderGivenWithPartialFailures() async throws {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 4
        let error = TestError()
        let procedures = (0..<20).map { index in
            Self.value(index, after: (20 - index) % 4, error: index.isMultiple(of: 7) ? error : nil)
        }
        let results = await queue.results(of: procedures)
        #expect(results.count == 20)
        for (index, result) in results.enumerated() {
            if index.isMultiple(of: 7) {
                #expect(result.error as? TestError == error)
            } else {
                #expect(try result.get() == index)
            }
        }
    }

    @Test func cancellingTheTaskAwaitingResultsCancelsWhatIsLeft() async {
        let queue = ProcedureQueue()
        let (started, signalStarted) = AsyncStream<Void>.makeStream()
        let procedures = (0..<4).map { _ in
            AsyncResultProcedure<Int> {
                signalStarted.yield()
                try await Task.sleep(for: .seconds(3600))
                return 0
            }
        }
        let awaiting = Task { await queue.results(of: procedures) }
        var count = 0
        for await _ in started {
            count += 1
            if count == procedures.count { break }
        }
        awaiting.cancel()
        let results = await awaiting.value
        #expect(results.count == 4)
        for result in results { #expect(result.error is CancellationError) }
    }

    // MARK: - gatheredResults()

    @Test func gatheredResultsRunsDespiteFailedAndCancelledElements() async throws {
        let queue = ProcedureQueue()
        let error = TestError()
        let ok = Self.value(1)
        let failing = Self.value(2, error: error)
        let cancelled = Self.value(3)
        cancelled.cancel()
        let gathering = [ok, failing, cancelled].gatheredResults()
        queue.add(procedures: [ok, failing, cancelled])
        let results = try await queue.run(gathering) as [ProcedureResult<Int>]
        #expect(results.count == 3)
        #expect(try results[0].get() == 1)
        #expect(results[1].error as? TestError == error)
        #expect(results[2].error is CancellationError)
        #expect(gathering.name == "GatheredResults")
    }
}
