import Foundation
import PKTesting
import Synchronization
import Testing

/// The harness itself: the pure checks, the recorder's overlap detection, the waits and the leak check.
struct PKTestingTests {

    @Test func finishedCheckPassesForACleanRunAndNamesEachProblemOtherwise() {
        let clean = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedure: clean)
        waitForAll(clean)
        #expect(ProcedureCheck.finished(clean).isEmpty)
        #expect(ProcedureCheck.finished(clean, withErrors: true).count == 1)
        #expect(ProcedureCheck.cancelled(clean).count == 1)
        #expect(ProcedureCheck.finishedWithErrors(clean, count: 0).isEmpty)
        #expect(ProcedureCheck.output(clean, "Hello World").isEmpty)
        #expect(ProcedureCheck.output(clean, "Goodbye").count == 1)

        let unfinished = TestProcedure(name: "Unfinished")
        let failures = ProcedureCheck.finished(unfinished)
        #expect(failures == ["Unfinished did not finish (status pending)"])
    }

    @Test func errorCheckComparesTypeAndValue() {
        let error = TestError()
        let procedure = TestProcedure(error: error)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(ProcedureCheck.error(procedure, equals: error).isEmpty)
        #expect(ProcedureCheck.error(procedure, equals: TestError()).count == 1)
        #expect(ProcedureCheck.error(procedure, equals: ProcedureKitError.unknown).first?.contains("not a") == true)
        #expect(ProcedureCheck.finishedWithErrors(procedure, count: 1).isEmpty)
        #expect(ProcedureCheck.finishedWithErrors(procedure, count: 2).count == 1)
    }

    @Test func recorderDetectsOverlappingCallbacksOfOneProcedure() {
        let recorder = EventRecorder(spin: .milliseconds(50))
        let procedure = TestProcedure()
        let inside = DispatchSemaphore(value: 0)
        let done = DispatchSemaphore(value: 0)
        // Deliver two callbacks at once by hand, as a broken engine would.
        DispatchQueue.global().async {
            inside.signal()
            recorder.did(execute: procedure)
            done.signal()
        }
        inside.wait()
        recorder.did(finish: procedure, withErrors: [])
        done.wait()
        #expect(recorder.didOverlap)
        #expect(ProcedureCheck.noConcurrentEvents(recorder).count >= 1)
    }

    @Test func recorderDoesNotReportSequentialCallbacksOrDifferentProcedures() {
        let recorder = EventRecorder()
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        recorder.didAttach(to: first)
        recorder.didAttach(to: second)
        recorder.did(finish: first, withErrors: [])
        #expect(!recorder.didOverlap)
        #expect(recorder.events == [.didAttach("First"), .didAttach("Second"), .didFinish("First")])
        #expect(recorder.events(named: "First").map(\.kind) == [.didAttach, .didFinish])
        #expect(recorder.count(of: .didAttach) == 2)
        #expect(recorder.count(of: .didAttach, for: second) == 1)
    }

    @Test func blockingWaitTimesOutForAProcedureThatNeverRuns() {
        #expect(!ProcedureWaiter.wait(for: TestProcedure(), timeout: 0.01))
    }

    @Test func blockingWaitReturnsAtOnceForAFinishedProcedure() {
        let procedure = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        #expect(ProcedureWaiter.wait(for: procedure, timeout: hangTimeout))
        #expect(ProcedureWaiter.wait(for: procedure, timeout: hangTimeout))
    }

    @Test func asyncWaitReturnsTrueWhenFinishedAndFalseWhenTheTaskIsCancelled() async {
        let procedure = TestProcedure(delay: 0.005)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        #expect(await waitForFinish([procedure], timeout: hangTimeout))

        let never = TestProcedure()
        let task = Task { await waitForFinish(never, timeout: 3600) }
        task.cancel()
        #expect(await task.value == false)
    }

    @Test func leakCheckReportsWhatIsStillAlive() {
        let leaks = LeakCheck()
        let kept = TestProcedure(name: "Kept")
        leaks.track(kept, name: "kept")
        do {
            let dropped = TestProcedure(name: "Dropped")
            leaks.track(dropped, name: "dropped")
        }
        #expect(leaks.waitUntilReleased(timeout: 0.05) == ["kept"])
        #expect(ProcedureCheck.released(leaks, timeout: 0.01) == ["kept was not released"])
        withExtendedLifetime(kept) {}
    }

    @Test func testProcedureRecordsItsOverridesAndProducesItsOperation() {
        let produced = TestProcedure(name: "Produced")
        let procedure = TestProcedure(produced: produced)
        procedure.cancel()
        #expect(procedure.procedureDidCancelCalled)
        let running = TestProcedure(name: "Running", delay: 0.001, produced: produced)
        let queue = ProcedureQueue()
        queue.add(procedures: procedure, running)
        waitForAll(procedure, running, produced)
        #expect(!procedure.didExecute)
        #expect(running.executeCount == 1)
        #expect(running.executedAt != nil)
        #expect(running.procedureWillFinishCalled && running.procedureDidFinishCalled)
        #expect(produced.didExecute)
    }
}
