import Foundation
import PKTesting
import Testing

@testable import PKCore

/// A queue that says why something is waiting: stranded dependencies are reported (and optionally cancelled), and
/// `waitReport()` lists what each unfinished procedure waits for.
@Suite(.timeLimit(.minutes(1)))
struct WaitDiagnosticsTests {

    /// Keeps the warnings written for `subsystem`.
    final class WarningRecorder: LogWriter, Sendable {
        let subsystem: String
        private let lines = PKMutex<[String]>([])

        init(subsystem: String) {
            self.subsystem = subsystem
        }

        func write(_ text: String, entry: LogEntry) {
            guard entry.severity == .warning, entry.subsystem == subsystem else { return }
            lines.withLock { $0.append(entry.message) }
        }

        var warnings: [String] { lines.withLock { $0 } }
    }

    // MARK: - Stranded dependencies

    @Test func aDependencyOnNoQueueIsReportedWithANamedWarning() async {
        let queue = ProcedureQueue()
        queue.name = "StrandedWarn-\(UUID().uuidString)"
        // A delay no test waits for: the check is made at once below, on this thread, as if the delay had passed
        // (blocking a test thread while holding the global log settings would starve the cooperative pool).
        queue.strandedDependencyPolicy = .warn(after: .seconds(3600))
        let load = ResultProcedure { 1 }
        load.name = "Load"
        let combine = BlockProcedure {}
        combine.name = "Combine"
        combine.addDependency(load)
        queue.add(procedure: combine)
        let recorder = WarningRecorder(subsystem: queue.name!)
        GlobalLogSettings.with(writer: recorder) {
            queue.checkForStrandedDependencies(now: .now + .seconds(3601))
        }
        #expect(recorder.warnings.count == 1)
        #expect(recorder.warnings.first?.hasPrefix("Combine waits for Load, on no queue") == true)
        // Only a warning: adding the dependency late still lets the dependent run.
        #expect(!combine.isCancelled)
        queue.add(procedure: load)
        await combine.waitUntilFinished()
        PKExpectProcedureFinished(combine)
    }

    @Test func aProcedureIsLookedAtOnceItsDelayHasPassedAndNotBefore() {
        var watch = StrandedDependencyWatch()
        watch.policy = .warn(after: .seconds(10))
        let start = ContinuousClock.now
        let first = BlockProcedure {}
        let second = BlockProcedure {}
        #expect(watch.watch(first, now: start) == .seconds(10))
        #expect(watch.watch(second, now: start + .seconds(4)) == nil)  // a check is scheduled already
        let (early, _, nextEarly) = watch.takeDue(now: start + .seconds(5))
        #expect(early.isEmpty && nextEarly == .seconds(5))
        let (due, _, next) = watch.takeDue(now: start + .seconds(11))
        #expect(due.map(\.identity) == [first.identity])
        #expect(next == .seconds(3))
        let (last, _, none) = watch.takeDue(now: start + .seconds(14))
        #expect(last.map(\.identity) == [second.identity])
        #expect(none == nil)
        #expect(watch.watch(first, now: start + .seconds(20)) == .seconds(10))  // scheduling again
        watch.policy = .ignore
        #expect(watch.watch(second, now: start) == nil)
    }

    @Test func withTheCancelPolicyTheWaitingProcedureFailsWithATypedError() async {
        let queue = ProcedureQueue()
        queue.strandedDependencyPolicy = .cancel(after: .milliseconds(10))
        let first = ResultProcedure { 1 }
        first.name = "First"
        let second = ResultProcedure { 2 }
        second.name = "Second"
        let combine = BlockProcedure {}
        combine.addDependencies(first, second)
        do {
            try await queue.run(combine)
            Issue.record("combine ran without its dependencies")
        } catch {
            #expect(error as? ProcedureKitError == ProcedureKitError.dependencyNotEnqueued(["First", "Second"]))
            #expect(error.isDependencyFailure)
            #expect(String(describing: error) == "Waited for dependencies on no queue: First, Second")
        }
        PKExpectProcedureCancelledWithError(combine, ProcedureKitError.dependencyNotEnqueued(["First", "Second"]))
    }

    @Test func aDependencyAddedWithinTheDelayIsNotReported() async throws {
        let queue = ProcedureQueue()
        queue.strandedDependencyPolicy = .cancel(after: .milliseconds(10))
        let load = ResultProcedure { 1 }
        let combine = BlockProcedure {}
        combine.addDependency(load)
        queue.add(procedure: combine)
        queue.add(procedure: load)
        try await queue.run(BlockProcedure {})
        await combine.waitUntilFinished()
        PKExpectProcedureFinished(combine)
    }

    @Test func aDependencyAddedToAWaitingProcedureIsWatchedToo() async {
        let queue = ProcedureQueue()
        queue.strandedDependencyPolicy = .cancel(after: .milliseconds(10))
        let gate = BlockProcedure {}
        let combine = BlockProcedure {}
        combine.addDependency(gate)
        queue.isSuspended = true
        queue.add(procedures: [gate, combine])
        let late = ResultProcedure { 1 }
        late.name = "Late"
        combine.addDependency(late)
        queue.isSuspended = false
        await combine.waitUntilFinished()
        PKExpectProcedureCancelledWithError(combine, ProcedureKitError.dependencyNotEnqueued(["Late"]))
    }

    @Test func theIgnorePolicyLeavesTheProcedureWaiting() async {
        let queue = ProcedureQueue()
        queue.strandedDependencyPolicy = .ignore
        #expect(queue.strandedDependencyPolicy == .ignore)
        #expect(ProcedureQueue().strandedDependencyPolicy == .warn(after: .seconds(1)))
        let load = ResultProcedure { 1 }
        let combine = BlockProcedure {}
        combine.addDependency(load)
        queue.add(procedure: combine)
        #expect(queue.waitReport().entries.count == 1)
        queue.add(procedure: load)
        await combine.waitUntilFinished()
        PKExpectProcedureFinished(combine)
    }

    @Test func watchedProceduresAreNotKeptAlive() async {
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            queue.strandedDependencyPolicy = .warn(after: .seconds(30))
            let load = ResultProcedure { 1 }
            let combine = BlockProcedure {}
            combine.addDependency(load)
            leaks.track([load, combine])
            queue.add(procedure: combine)
            queue.add(procedure: load)
            await combine.waitUntilFinished()
        }
        #expect(await leaks.unreleased() == [])
    }

    // MARK: - waitReport()

    /// A condition that is evaluated only when `release()` is called.
    final class HeldCondition: Condition, @unchecked Sendable {
        // @unchecked Sendable: `completion` is guarded by its PKMutex.
        private let completion = PKMutex<(@Sendable (ConditionResult) -> Void)?>(nil)

        override func evaluate(procedure: Procedure, completion: @escaping @Sendable (ConditionResult) -> Void) {
            self.completion.withLock { $0 = completion }
        }

        var isEvaluating: Bool { completion.withLock { $0 != nil } }

        func release() { completion.withLock { $0 }?(.success(true)) }
    }

    @Test func theReportSaysWhatEachProcedureWaitsFor() async throws {
        let queue = ProcedureQueue()
        queue.name = "Report"
        queue.maxConcurrentOperationCount = 2
        queue.strandedDependencyPolicy = .ignore
        let other = ProcedureQueue()
        other.name = "Other"
        other.isSuspended = true

        let (started, signalStarted) = AsyncStream<Void>.makeStream()
        let (release, releaseRunning) = AsyncStream<Void>.makeStream()
        let running = AsyncBlockProcedure {
            signalStarted.yield()
            for await _ in release { break }
        }
        running.name = "Running"
        let onNoQueue = BlockProcedure {}
        onNoQueue.name = "Nowhere"
        let elsewhere = BlockProcedure {}
        elsewhere.name = "Elsewhere"
        let combine = BlockProcedure {}
        combine.name = "Combine"
        combine.addDependencies(running, onNoQueue, elsewhere)
        let condition = HeldCondition()
        condition.name = "Held"
        let guarded = BlockProcedure {}
        guarded.name = "Guarded"
        guarded.add(condition: condition)

        other.add(procedure: elsewhere)
        queue.add(procedures: [running, combine, guarded])
        for await _ in started { break }
        while !condition.isEvaluating { await Task.yield() }

        let report = queue.waitReport()
        #expect(report.queueName == "Report")
        #expect(report.maxConcurrentOperationCount == 2)
        #expect(!report.isSuspended)
        let byName = Dictionary(uniqueKeysWithValues: report.entries.map { ($0.name, $0) })
        #expect(byName.count == 3)
        #expect(byName["Running"]?.reason == .executing)
        #expect(byName["Running"]?.identity == running.identity)
        #expect(
            byName["Combine"]?.reason
                == .dependencies([
                    WaitedDependency(name: "Running", standing: .executing),
                    WaitedDependency(name: "Nowhere", standing: .notEnqueued),
                    WaitedDependency(name: "Elsewhere", standing: .waiting(queue: "Other")),
                ]))
        #expect(byName["Guarded"]?.reason == .conditions(["Held"]))
        #expect(report.waiting.count == 2)
        let text = report.description
        #expect(text.hasPrefix("Queue \"Report\": 1 running of at most 2, 2 waiting"))
        #expect(
            text.contains(
                "- Combine: waiting for dependencies: Running (executing), Nowhere (on no queue), "
                    + "Elsewhere (waiting on queue \"Other\")"))
        #expect(text.contains("- Guarded: evaluating conditions: Held"))

        // Everything moves on once released.
        condition.release()
        releaseRunning.yield()
        queue.add(procedure: onNoQueue)
        other.isSuspended = false
        await combine.waitUntilFinished()
        await guarded.waitUntilFinished()
        PKExpectProcedureFinished(combine)
        // A finished procedure's waiters resume a moment before its queue lets go of it: wait for the queue.
        await queue.allOperationsFinished()
        #expect(queue.waitReport().entries.isEmpty)
    }

    @Test func aReadyProcedureBeyondTheWidthWaitsForASlot() async {
        let queue = ProcedureQueue()
        queue.maxConcurrentOperationCount = 1
        queue.isSuspended = true
        let first = BlockProcedure {}
        queue.add(procedure: first)
        let report = queue.waitReport()
        #expect(report.isSuspended)
        #expect(report.entries.map(\.reason) == [.slot])
        #expect(report.description.hasPrefix("Queue \"unnamed\" (suspended): 0 running of at most 1, 1 waiting"))
        #expect(report.description.hasSuffix("- BlockProcedure: ready, waiting for a free slot"))
        queue.isSuspended = false
        await first.waitUntilFinished()
    }

    @Test func plainOperationsAreReportedToo() async {
        let queue = ProcedureQueue()
        let blocker = BlockOperation {}
        let plain = BlockOperation {}
        plain.name = "Plain"
        plain.addDependency(blocker)
        queue.addOperation(plain)
        let report = queue.waitReport()
        #expect(report.entries.first?.name == "Plain")
        #expect(report.entries.first?.identity == nil)
        if case .dependencies(let dependencies) = report.entries.first?.reason {
            #expect(dependencies.map(\.standing) == [.operationNotStarted])
        } else {
            Issue.record("expected dependencies, got \(String(describing: report.entries.first?.reason))")
        }
        queue.addOperation(blocker)
        await queue.allOperationsFinished()
    }
}
