import Foundation
import PKCore
import PKTesting
import Testing

/// Issue 26's third newcomer program: a Swift Testing suite for one's own procedures, written with PKTesting's
/// helpers only (test doubles, async waits, `PKExpect…`, an event recorder, a manual clock, a leak check). Every wait
/// suspends: none blocks a thread of the cooperative pool.
@Suite(.timeLimit(.minutes(1)))
struct NewcomerTestingTests {

    /// How long a wait may take before the test fails instead of hanging.
    static let patience: TimeInterval = 20

    /// The newcomer's own step: counts the words of its input.
    static func countWords() -> AsyncTransformProcedure<String, Int> {
        AsyncTransformProcedure { text in text.split(separator: " ").count }
    }

    @Test func aStepThatFailsFinishesWithItsError() async {
        let error = TestError()
        let step = TestProcedure(error: error)
        ProcedureQueue().add(procedure: step)
        #expect(await waitForFinish(step, timeout: Self.patience))
        PKExpectProcedureFinished(step, withErrors: true)
        PKExpectProcedureFinishedWithError(step, error)
        #expect(step.didExecute)
    }

    @Test func myStepCountsTheWordsOfItsInjectedInput() async throws {
        let greet = TestProcedure()  // outputs "Hello World"
        let count = Self.countWords().injectResult(from: greet)
        let recorder = EventRecorder()
        count.addObserver(recorder)
        let queue = ProcedureQueue()
        queue.add(procedure: greet)
        let words = try await queue.run(count)
        #expect(words == 2)
        PKExpectProcedureOutput(count, 2)
        PKExpectProcedureNoConcurrentEvents(recorder)
        #expect(recorder.kinds(for: count) == [.didAttach, .willExecute, .didExecute, .willFinish, .didFinish])
    }

    @Test func myStepIsCancelledWhenWhatItNeedsFailed() async {
        let error = TestError()
        let greet = TestProcedure(error: error)
        let count = Self.countWords().injectResult(from: greet)
        ProcedureQueue().add(procedures: greet, count)
        #expect(await waitForFinish([greet, count], timeout: Self.patience))
        PKExpectProcedureCancelledWithError(count, ProcedureKitError.dependency(finishedWithErrors: [error]))
        #expect(count.errors.isDependencyFailure)
        #expect(count.errors.rootCauses.first as? TestError == error)
    }

    @Test func aStepCancelledBeforeItStartsNeverExecutes() async {
        let step = TestProcedure()
        step.cancel()
        ProcedureQueue().add(procedure: step)
        #expect(await waitForFinish(step, timeout: Self.patience))
        PKExpectProcedureCancelled(step)
        #expect(!step.didExecute)
    }

    @Test func aFiveMinuteDelayFinishesWhenTheClockSaysSo() async {
        let clock = ManualClock()
        let delay = DelayProcedure(by: 300, clock: clock)
        let events = delay.lifecycleEvents()
        ProcedureQueue().add(procedure: delay)
        // Once execute() has returned, the delay is on the clock.
        for await event in events {
            if case .didExecute = event { break }
        }
        #expect(!delay.isFinished)
        clock.advance(by: .seconds(300))
        #expect(await waitForFinish(delay, timeout: Self.patience))
        PKExpectProcedureFinished(delay)
    }

    @Test func finishedStepsAndTheirObserversAreReleased() async throws {
        let leaks = LeakCheck()
        do {
            let greet = TestProcedure()
            let count = Self.countWords().injectResult(from: greet)
            let recorder = EventRecorder()
            count.addObserver(recorder)
            leaks.track([greet, count, recorder])
            let queue = ProcedureQueue()
            queue.add(procedure: greet)
            _ = try await queue.run(count)
        }
        await PKExpectReleased(leaks, timeout: Self.patience)
    }
}
