import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// Progress reported by procedures and rolled up by groups, repeats, retries, batches and queues, as a
/// ``ProgressMonitor`` sees it.
@Suite(.timeLimit(.minutes(1)))
struct ProgressTests {

    /// A procedure that waits, once it executes, for the test to let it finish (``release()``); the test reports
    /// its progress meanwhile.
    final class HeldProcedure: Procedure, @unchecked Sendable {
        // @unchecked Sendable: `gate` is a Mutex.
        private let gate = Mutex((released: false, executing: false))

        init(name: String? = nil) {
            super.init(disableAutomaticFinishing: true)
            self.name = name
        }

        override func execute() {
            let released = gate.withLock { gate -> Bool in
                gate.executing = true
                return gate.released
            }
            if released || isCancelled { finish() }
        }

        /// Finishes the procedure now if it is executing, otherwise as soon as it executes.
        func release() {
            let executing = gate.withLock { gate -> Bool in
                gate.released = true
                return gate.executing
            }
            if executing { finish() }
        }
    }

    /// Collects what a handler is given.
    final class Seen: Sendable {
        private let values = Mutex<[ProcedureProgress]>([])
        func append(_ value: ProcedureProgress) { values.withLock { $0.append(value) } }
        var all: [ProcedureProgress] { values.withLock { $0 } }
    }

    // MARK: - One procedure

    @Test func aProcedureReadsAsWhatItReportedAndCompleteOnceFinished() async {
        let procedure = HeldProcedure()
        #expect(procedure.procedureProgress == .notStarted)
        procedure.reportProgress(completed: 3, of: 12, message: "copying")
        #expect(procedure.procedureProgress.fractionCompleted == 0.25)
        #expect(procedure.procedureProgress.message == "copying")
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        procedure.release()
        await procedure.waitUntilFinished()
        #expect(procedure.procedureProgress.isFinished)
        #expect(procedure.procedureProgress.completedUnitCount == 12)
        procedure.reportProgress(completed: 1, of: 12)
        #expect(procedure.procedureProgress.completedUnitCount == 12, "a report after finishing is ignored")
    }

    @Test func aProcedureNobodyAsksAboutHasNoProgressNode() async throws {
        let procedure = BlockProcedure {}
        try await ProcedureQueue().run(procedure)
        #expect(procedure.existingProgressNode == nil)
    }

    @Test func aCancelledProcedureFinishesComplete() async {
        let procedure = HeldProcedure()
        let monitor = ProgressMonitor(procedure)
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
        #expect(monitor.progress.isFinished)
        #expect(monitor.progress.fractionCompleted == 1)
    }

    @Test func handlersSeeTheCurrentValueThenEachChangeThenTheFinishedValueLast() async {
        let procedure = HeldProcedure()
        procedure.reportProgress(fractionCompleted: 0.1)
        let monitor = ProgressMonitor(procedure)
        let seen = Seen()
        monitor.addHandler { seen.append($0) }
        procedure.reportProgress(fractionCompleted: 0.5, message: "half")
        ProcedureQueue().add(procedure: procedure)
        procedure.release()
        await procedure.waitUntilFinished()
        #expect(seen.all.map(\.fractionCompleted) == [0.1, 0.5, 1])
        #expect(seen.all.last?.isFinished == true)
        #expect(seen.all.last?.message == "half")
    }

    @Test func updatesEndAfterTheFinishedValue() async {
        let procedure = HeldProcedure()
        let monitor = ProgressMonitor(procedure)
        let updates = monitor.updates()
        ProcedureQueue().add(procedure: procedure)
        procedure.reportProgress(completed: 1, of: 2)
        procedure.release()
        var last: ProcedureProgress?
        for await progress in updates { last = progress }
        #expect(last?.isFinished == true)
        #expect(last?.completedUnitCount == 2)
    }

    @Test func aHandlerAddedToAFinishedProcedureIsCalledOnceWithTheFinishedValue() async throws {
        let procedure = BlockProcedure {}
        try await ProcedureQueue().run(procedure)
        let seen = Seen()
        ProgressMonitor(procedure).addHandler { seen.append($0) }
        #expect(seen.all.count == 1)
        #expect(seen.all.first?.isFinished == true)
    }

    // MARK: - Groups

    @Test func aGroupWeighsItsChildrenByTheirTotals() async {
        let download = HeldProcedure(name: "download")
        let parse = HeldProcedure(name: "parse")
        let group = GroupProcedure(operations: download, parse)
        let monitor = ProgressMonitor(group)
        download.reportProgress(completed: 0, of: 99)
        #expect(monitor.progress.totalUnitCount == 100)
        download.reportProgress(completed: 99, of: 99, message: "downloaded")
        #expect(monitor.progress.completedUnitCount == 99)
        #expect(monitor.progress.fractionCompleted == 0.99)
        #expect(monitor.progress.message == "downloaded")
        ProcedureQueue().add(procedure: group)
        download.release()
        parse.release()
        await group.waitUntilFinished()
        #expect(monitor.progress.isFinished)
        #expect(monitor.progress.fractionCompleted == 1)
    }

    @Test func childrenAddedLaterAreIncluded() async {
        let first = HeldProcedure()
        let group = GroupProcedure(operations: first)
        let monitor = ProgressMonitor(group)
        first.reportProgress(fractionCompleted: 1)
        #expect(monitor.progress.fractionCompleted == 1)
        let second = HeldProcedure()
        group.addChild(second)
        #expect(monitor.progress.fractionCompleted == 0.5)
        ProcedureQueue().add(procedure: group)
        first.release()
        second.release()
        await group.waitUntilFinished()
        #expect(monitor.progress.fractionCompleted == 1)
    }

    @Test func nestedGroupsRollUpThroughEachLevel() async {
        let leaf = HeldProcedure()
        let other = HeldProcedure()
        let inner = GroupProcedure(operations: leaf)
        let outer = GroupProcedure(operations: inner, other)
        let monitor = ProgressMonitor(outer)
        leaf.reportProgress(completed: 10, of: 10)
        // inner weighs 10 (its child's total), `other` weighs 1.
        #expect(monitor.progress.completedUnitCount == 10)
        #expect(monitor.progress.totalUnitCount == 11)
        ProcedureQueue().add(procedure: outer)
        leaf.release()
        other.release()
        await outer.waitUntilFinished()
        #expect(monitor.progress.isFinished)
    }

    @Test func aGroupWatchedLateCountsTheChildrenThatFinishedAsDone() async {
        let quick = (0..<3).map { _ in BlockProcedure {} }
        let held = HeldProcedure()
        let group = GroupProcedure(operations: quick + [held])
        ProcedureQueue().add(procedure: group)
        for procedure in quick { await procedure.waitUntilFinished() }
        // The group counts a child as finished when its queue tells it, a little after the child finished: wait for
        // that.
        while group.groupState.withLock({ $0.finishedChildProcedures }) < 3 { await Task.yield() }
        let monitor = ProgressMonitor(group)
        #expect(monitor.progress.completedUnitCount == 3)
        #expect(monitor.progress.totalUnitCount == 4)
        held.release()
        await group.waitUntilFinished()
        #expect(monitor.progress.fractionCompleted == 1)
    }

    @Test func aBatchRollsUpItsItems() async throws {
        let batch = BatchProcedure<TransformProcedure<Int, Int>>(input: [1, 2, 3, 4]) {
            TransformProcedure { $0 * 2 }
        }
        let monitor = ProgressMonitor(batch)
        try await ProcedureQueue().run(batch)
        #expect(monitor.progress.isFinished)
        #expect(monitor.progress.fractionCompleted == 1)
        #expect(monitor.progress.totalUnitCount == 4, "one unit per item")
    }

    // MARK: - Retry and repeat

    /// Reports `fraction`, then finishes, failing when `fails`.
    final class ReportingProcedure: Procedure, @unchecked Sendable {
        let fraction: Double
        let fails: Bool
        init(fraction: Double, fails: Bool) {
            self.fraction = fraction
            self.fails = fails
            super.init()
        }
        override func execute() {
            reportProgress(fractionCompleted: fraction)
            finish(with: fails ? TestError() : nil)
        }
    }

    @Test func aRetrysProgressIsItsCurrentAttempts() async {
        let attempts = Mutex(0)
        let retry = RetryProcedure<ReportingProcedure>(max: 3) {
            let attempt = attempts.withLock { count -> Int in
                count += 1
                return count
            }
            return ReportingProcedure(fraction: attempt < 3 ? 0.9 : 0.3, fails: attempt < 3)
        }
        let monitor = ProgressMonitor(retry)
        let seen = Seen()
        monitor.addHandler { seen.append($0) }
        try? await ProcedureQueue().run(retry)
        #expect(attempts.withLock { $0 } == 3)
        let fractions = seen.all.map(\.fractionCompleted)
        // The second attempt starts from nothing, not from the first one's 90%: the roll-up follows one attempt.
        let firstHigh = fractions.firstIndex(of: 0.9)
        #expect(firstHigh != nil)
        if let firstHigh { #expect(fractions[firstHigh...].contains { $0 < 0.9 }) }
        #expect(fractions.contains(0.3))
        #expect(seen.all.last?.isFinished == true)
        #expect(seen.all.last?.fractionCompleted == 1)
    }

    // MARK: - Queues

    @Test func aQueueRollsUpWhatItHoldsAndStartsAfreshWhenIdle() async {
        let queue = ProcedureQueue()
        let monitor = ProgressMonitor(queue)
        let first = HeldProcedure()
        let second = HeldProcedure()
        queue.add(procedures: [first, second])
        #expect(monitor.progress.totalUnitCount == 2)
        first.reportProgress(fractionCompleted: 0.5)
        #expect(monitor.progress.fractionCompleted == 0.25)
        first.release()
        second.release()
        await queue.allOperationsFinished()
        #expect(monitor.progress.fractionCompleted == 1)
        #expect(!monitor.progress.isFinished, "a queue can always take more")
        let third = HeldProcedure()
        queue.add(procedure: third)
        #expect(monitor.progress.totalUnitCount == 1)
        #expect(monitor.progress.fractionCompleted == 0)
        third.release()
        await third.waitUntilFinished()
    }

    @Test func aQueueWatchedLateCountsWhatItHoldsNow() async {
        let queue = ProcedureQueue()
        let held = HeldProcedure()
        queue.add(procedure: held)
        let monitor = ProgressMonitor(queue)
        held.reportProgress(completed: 1, of: 4)
        #expect(monitor.progress.completedUnitCount == 1)
        #expect(monitor.progress.totalUnitCount == 4)
        held.release()
        await held.waitUntilFinished()
    }

    // MARK: - Foundation

    @Test func aFoundationProgressFollowsAndCancelsTheProcedure() async {
        let procedure = HeldProcedure()
        let monitor = ProgressMonitor(procedure)
        let foundation = monitor.makeFoundationProgress()
        procedure.reportProgress(completed: 5, of: 20)
        #expect(foundation.totalUnitCount == 20)
        #expect(foundation.completedUnitCount == 5)
        procedure.reportProgress(fractionCompleted: 0.5)
        #expect(foundation.completedUnitCount == 500)
        foundation.cancel()
        // Foundation may call the cancellation handler on another thread.
        while !procedure.isCancelled { await Task.yield() }
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
        #expect(foundation.fractionCompleted == 1)
    }

    // MARK: - Races and lifetimes

    @Test func stoppingAMonitorEndsItsStreams() async {
        let queue = ProcedureQueue()
        let monitor = ProgressMonitor(queue)
        let updates = monitor.updates()
        monitor.stop()
        var count = 0
        for await _ in updates { count += 1 }  // ends: a queue's progress never finishes by itself
        #expect(count <= 1)
        var late = 0
        for await _ in monitor.updates() { late += 1 }  // made after stop(): ends at once
        #expect(late == 0)
    }

    @Test func aLongLivedQueueMonitorLetsGoOfEveryStreamThatEnded() async {
        // A queue's monitor serving a stream per client: each stream that ends (its consumer stops iterating, or
        // its task is cancelled) must leave nothing behind in the monitor.
        let queue = ProcedureQueue()
        let monitor = ProgressMonitor(queue)
        for _ in 0..<100 {
            let updates = monitor.updates()
            for await _ in updates { break }
        }
        for _ in 0..<20 {
            let subscribed = AsyncStream.makeStream(of: Void.self)
            let consumer = Task {
                let updates = monitor.updates()
                subscribed.continuation.yield()
                for await _ in updates {}
            }
            for await _ in subscribed.stream { break }
            consumer.cancel()
            await consumer.value
        }
        #expect(monitor.subscriptionCount == 0)
        let kept = monitor.updates()
        #expect(monitor.subscriptionCount == 1, "a stream still being read is kept")
        withExtendedLifetime(kept) {}
    }

    @Test func streamsOfAFinishedProcedureLeaveNothingInItsMonitor() async {
        // The first value is the finished one: the stream ends inside `updates()`, before it is returned.
        let procedure = BlockProcedure {}
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        await procedure.waitUntilFinished()
        let monitor = ProgressMonitor(procedure)
        for _ in 0..<10 {
            var values = 0
            for await progress in monitor.updates() {
                values += 1
                #expect(progress.isFinished)
            }
            #expect(values == 1)
        }
        #expect(monitor.subscriptionCount == 0)
    }

    @Test func theStreamOfAMonitorThatIsLetGoOfEnds() async {
        let queue = ProcedureQueue()
        var seen = 0
        for await _ in ProgressMonitor(queue).updates() { seen += 1 }
        #expect(seen <= 1)
    }

    @Test func hugeTotalsReadAsTheLargestUnitCountInsteadOfTrapping() {
        let children = [HeldProcedure(), HeldProcedure()]
        let group = GroupProcedure(operations: children)
        for child in children { child.reportProgress(completed: .max / 2, of: .max) }
        let progress = group.procedureProgress
        #expect(progress.totalUnitCount == .max)
        #expect(abs(progress.fractionCompleted - 0.5) < 1e-9)
    }

    @Test func aDeepNestOfGroupsIsWatchedAndRolledUpWithoutRecursing() async {
        // Linking the nest and climbing it on every report are loops: recursion once per level would overflow
        // the stack here (the plain thread's 8 MiB) well before 20,000 levels.
        let fraction = await onThreadOfItsOwn { () -> Double in
            let innermost = HeldProcedure()
            var group = GroupProcedure(operations: [innermost])
            for _ in 1..<20_000 { group = GroupProcedure(operations: [group]) }
            let monitor = ProgressMonitor(group)
            innermost.reportProgress(fractionCompleted: 0.5)
            return monitor.progress.fractionCompleted
        }
        #expect(fraction == 0.5)
    }

    @Test func childrenReportingFromManyThreadsAddUpExactlyAndHandlersSeeNoStepBack() async {
        let children = (0..<16).map { _ in HeldProcedure() }
        let group = GroupProcedure(operations: children)
        let monitor = ProgressMonitor(group)
        // Each child's weight is fixed first (a child's first report of units changes it from 1 to its total, and
        // a growing total may move the fraction back); after that every report only adds work done.
        for child in children { child.reportProgress(completed: 0, of: 100) }
        let seen = Seen()
        monitor.addHandler { seen.append($0) }
        DispatchQueue.concurrentPerform(iterations: children.count) { index in
            for step in 1...100 { children[index].reportProgress(completed: Int64(step), of: 100) }
        }
        #expect(monitor.progress.completedUnitCount == 1600)
        #expect(monitor.progress.totalUnitCount == 1600)
        let fractions = seen.all.map(\.fractionCompleted)
        let inOrder = zip(fractions, fractions.dropFirst()).allSatisfy { $0 <= $1 }
        #expect(inOrder, "handlers are given the values in the order they were reached")
        #expect(fractions.count > 1)
        #expect(fractions.last == 1)
        ProcedureQueue().add(procedure: group)
        for child in children { child.release() }
        await group.waitUntilFinished()
    }

    @Test func aStoppedMonitorsHandlersAreReleased() async {
        final class Token: Sendable {}
        weak var released: Token?
        let procedure = HeldProcedure()
        do {
            let token = Token()
            released = token
            let monitor = ProgressMonitor(procedure)
            monitor.addHandler { _ in withExtendedLifetime(token) {} }
        }
        #expect(released == nil, "the monitor's deinit removed its handler")
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        await procedure.waitUntilFinished()
    }

    @Test func aFinishedProceduresHandlersAreReleasedWhileTheMonitorLives() async {
        final class Token: Sendable {}
        weak var released: Token?
        let procedure = HeldProcedure()
        let monitor = ProgressMonitor(procedure)
        do {
            let token = Token()
            released = token
            monitor.addHandler { _ in withExtendedLifetime(token) {} }
        }
        ProcedureQueue().add(procedure: procedure)
        procedure.release()
        await procedure.waitUntilFinished()
        #expect(released == nil)
        withExtendedLifetime(monitor) {}
    }
}
