import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// A subclass of ResultProcedure, as ProcedureKit users write them (the class is open).
final class AnswerProcedure: ResultProcedure<Int>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    init() { super.init { 42 } }
}

/// A subclass of TransformProcedure, as ProcedureKit users write them (the class is open).
final class DoubleProcedure: TransformProcedure<Int, Int>, @unchecked Sendable {
    // @unchecked Sendable: no state of its own.
    init() { super.init { $0 * 2 } }
}

/// ProcedureKit's shapes of the standard procedures and of injection.
struct ProcedureKitShapesTests {

    let queue = ProcedureQueue()

    @Test func valueProceduresCanBeSubclassed() {
        let answer = AnswerProcedure()
        let double = DoubleProcedure()
        double.injectResult(from: answer)
        queue.add(procedures: answer, double)
        waitForAll(answer, double)
        PKExpectProcedureOutput(double, 84)
    }

    @Test func aSelfFinishingBlockProcedureFinishesWhenItsBlockSaysSo() {
        let procedure = BlockProcedure { this in
            DispatchQueue.global().async { this.finish() }
        }
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
    }

    @Test func aSelfFinishingBlockProcedureThatDoesNotFinishTimesOutWithAWarning() {
        let clock = ManualClock()
        let writer = TestableLogWriter()
        let release = DispatchSemaphore(value: 0)
        let procedure = BlockProcedure(clock: clock) { this in
            DispatchQueue.global().async {
                release.wait()
                this.finish()
            }
        }
        GlobalLogSettings.with(enabled: true, severity: .warning, writer: writer) {
            queue.add(procedure: procedure)
            #expect(clock.waitForScheduledActions(count: 1))
            clock.advance(by: .seconds(2))
            #expect(!procedure.isCancelled)
            clock.advance(by: .seconds(1))
            #expect(procedure.isCancelled)
            #expect(!procedure.isFinished)
        }
        release.signal()
        waitForAll(procedure)
        #expect(procedure.errors.first as? ProcedureKitError == ProcedureKitError.timedOut(with: .by(3)))
        #expect(writer.messages.contains { $0.contains("did not finish within 3.0 s") })
    }

    @Test func aSelfFinishingBlockProcedureReleasesItsTimeoutWhenItFinishes() {
        let clock = ManualClock()
        let procedure = BlockProcedure(clock: clock) { $0.finish() }
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(clock.scheduledActionCount == 0)
        #expect(clock.totalScheduledActionCount == 1)
        PKExpectProcedureFinished(procedure)
    }

    @Test func aNonPositiveTimeoutMeansNoTimer() {
        let clock = ManualClock()
        let procedure = BlockProcedure(timeout: 0, clock: clock) { $0.finish() }
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(clock.totalScheduledActionCount == 0)
    }

    @Test func sequenceProceduresTakeTheirInputAtInitWithSource() {
        let map = MapProcedure(source: [1, 2, 3]) { $0 * 10 }
        let flatMap = FlatMapProcedure(source: ["1", "x", "3"]) { Int($0) }
        let filter = FilterProcedure(source: 1...6) { $0.isMultiple(of: 3) }
        let reduce = ReduceProcedure(source: [1, 2, 3], initial: 10) { $0 + $1 }
        queue.add(procedures: map, flatMap, filter, reduce)
        waitForAll(map, flatMap, filter, reduce)
        PKExpectProcedureOutput(map, [10, 20, 30])
        PKExpectProcedureOutput(flatMap, [1, 3])
        PKExpectProcedureOutput(filter, [3, 6])
        PKExpectProcedureOutput(reduce, 16)
    }

    @Test func flatMapAndReduceOverOutputProcedures() {
        let sources = [ResultProcedure { 1 }, ResultProcedure { 2 }, ResultProcedure { 3 }]
        let odd = sources.flatMap { $0.isMultiple(of: 2) ? nil : "\($0)" }
        let total = sources.reduce(100) { $0 + $1 }
        queue.add(procedures: sources)
        queue.add(procedures: odd, total)
        waitForAll([odd, total])
        PKExpectProcedureOutput(odd, ["1", "3"])
        PKExpectProcedureOutput(total, 106)
    }

    @Test func injectWithTheDependencysErrorCallsTheBlockEvenWhenItFailed() {
        let error = TestError()
        let failing = TestProcedure(name: "Failing", error: error)
        let receiver = TestProcedure(name: "Receiver")
        let seen = PKMutex<(any Error)?>(nil)
        receiver.inject(dependency: failing) { receiver, dependency, error in
            seen.withLock { $0 = error }
            receiver.input = .ready(dependency.procedureName)
        }
        queue.add(procedures: failing, receiver)
        waitForAll(failing, receiver)
        #expect(seen.withLock { $0 } as? TestError == error)
        PKExpectProcedureOutput(receiver, "Hello Failing")
    }

    @Test func injectWithTheDependencysErrorCancelsWhenTheDependencyWasCancelled() {
        let cancelled = TestProcedure(name: "Cancelled")
        cancelled.cancel()
        let receiver = TestProcedure(name: "Receiver")
        let called = Atomic<Bool>(false)
        receiver.inject(dependency: cancelled) { _, _, _ in called.store(true, ordering: .relaxed) }
        queue.add(procedures: cancelled, receiver)
        waitForAll(cancelled, receiver)
        let wasCalled = called.load(ordering: .relaxed)
        #expect(!wasCalled)
        #expect(receiver.errors.first as? ProcedureKitError == ProcedureKitError.dependenciesCancelled())
    }

    @Test func injectResultUnwrapsAnOptionalOutput() {
        let some = ResultProcedure<String?> { "World" }
        let none = ResultProcedure<String?> { nil }
        let fromSome = TestProcedure(name: "FromSome")
        let fromNone = TestProcedure(name: "FromNone")
        fromSome.injectResult(from: some)
        fromNone.injectResult(from: none)
        queue.add(procedures: some, none, fromSome, fromNone)
        waitForAll(some, none, fromSome, fromNone)
        PKExpectProcedureOutput(fromSome, "Hello World")
        #expect(fromNone.errors.first as? ProcedureKitError == ProcedureKitError.requirementNotSatisfied())
        #expect(!fromNone.didExecute)
    }

    @Test func injectResultWithABlockGetsTheOutput() {
        let source = ResultProcedure { 7 }
        let receiver = TestProcedure()
        receiver.injectResult(from: source) { receiver, value in receiver.input = .ready("\(value)") }
        queue.add(procedures: source, receiver)
        waitForAll(source, receiver)
        PKExpectProcedureOutput(receiver, "Hello 7")
    }

    @Test func aRetryForwardsItsInjectedInputToEveryAttempt() {
        let attempts = Atomic<Int>(0)
        let retry = RetryProcedure<TestProcedure>(max: 3, wait: .immediate) {
            TestProcedure(name: "Attempt", error: attempts.add(1, ordering: .relaxed).newValue < 3 ? TestError() : nil)
        }
        let source = ResultProcedure { "Input" }
        retry.injectResult(from: source)
        queue.add(procedures: source, retry)
        waitForAll(source, retry)
        PKExpectProcedureFinished(retry)
        #expect(retry.count == 3)
        #expect(retry.current?.output.success == "Hello Input")
        #expect(retry.previous?.input.value == "Input")
    }

    @Test func aRepeatRunsItsChildrenOnTheGivenDispatchQueue() {
        let dispatchQueue = DispatchQueue(label: "ProcedureKitShapesTests.repeat")
        let key = DispatchSpecificKey<Int>()
        dispatchQueue.setSpecific(key: key, value: 1)
        let onQueue = Atomic<Int>(0)
        let repeated = RepeatProcedure(dispatchQueue: dispatchQueue, max: 2) {
            BlockProcedure { if DispatchQueue.getSpecific(key: key) == 1 { onQueue.add(1, ordering: .relaxed) } }
        }
        queue.add(procedure: repeated)
        waitForAll(repeated)
        let count = onQueue.load(ordering: .relaxed)
        #expect(count == 2)
    }

    @Test func aDelayWithoutADelayWaitsForItsInput() {
        let delay = DelayProcedure()
        #expect(delay.input.isPending)
        #expect(delay.name == "Delay")
        delay.input = .ready(.by(0))
        queue.add(procedure: delay)
        waitForAll(delay)
        PKExpectProcedureFinished(delay)
    }
}
