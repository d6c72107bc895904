import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

/// Procedure's public surface: names, status, errors, finishing rules, dependencies, enqueueing and producing.
struct ProcedureTests {

    final class Unnamed: Procedure, @unchecked Sendable {
        // @unchecked Sendable: no state of its own; the superclass guards its state with its Mutex.
    }

    @Test func nameDefaultsToTheTypeName() {
        #expect(Unnamed().name == "Unnamed")
        #expect(BlockProcedure {}.name == "BlockProcedure")
        #expect(Procedure().procedureName == "Procedure")
    }

    @Test func nameCanBeSetAndReset() {
        let procedure = Unnamed()
        procedure.name = "Custom"
        #expect(procedure.name == "Custom")
        procedure.name = nil
        #expect(procedure.name == "Unnamed")
    }

    @Test func descriptionStartsWithTheName() {
        let procedure = TestProcedure(name: "Described")
        #expect(procedure.description.hasPrefix("Described #"))
    }

    enum Outcome: String, CaseIterable, Sendable {
        case succeed, fail, cancelBeforeStart, cancelWithErrorBeforeStart, cancelWhileExecuting
    }

    @Test(arguments: [
        (Outcome.succeed, ProcedureStatus.finished), (.fail, .failed), (.cancelBeforeStart, .cancelled),
        (.cancelWithErrorBeforeStart, .cancelled), (.cancelWhileExecuting, .cancelled),
    ])
    func statusReportsHowTheProcedureEnded(_ outcome: Outcome, _ expected: ProcedureStatus) {
        let procedure = HookProcedure { procedure in
            switch outcome {
            case .fail: procedure.finish(with: TestError())
            case .cancelWhileExecuting:
                procedure.cancel()
                procedure.finish()
            default: procedure.finish()
            }
        }
        #expect(procedure.status == .pending)
        switch outcome {
        case .cancelBeforeStart: procedure.cancel()
        case .cancelWithErrorBeforeStart: procedure.cancel(with: TestError())
        default: break
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.status == expected)
        #expect(procedure.status.description == expected.rawValue)
    }

    @Test func statusIsExecutingWhileExecuting() {
        let seen = PKMutex<ProcedureStatus?>(nil)
        let procedure = HookProcedure { procedure in
            let status = procedure.status
            seen.withLock { $0 = status }
            procedure.finish()
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(seen.withLock { $0 } == .executing)
    }

    @Test func cancelErrorsAccumulateBeforeFinishErrorsAndErrorIsTheFirst() {
        let cancelError = TestError()
        let finishErrors = [TestError(), TestError()]
        let procedure = HookProcedure { procedure in
            procedure.cancel(with: cancelError)
            procedure.finish(withErrors: finishErrors)
        }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.errors.compactMap { $0 as? TestError } == [cancelError] + finishErrors)
        #expect(procedure.error as? TestError == cancelError)
        #expect(procedure.failed)
    }

    @Test func secondFinishIsIgnored() {
        let first = TestError()
        let procedure = HookProcedure { procedure in
            procedure.finish(with: first)
            procedure.finish(with: TestError())
        }
        procedure.log.enabled = false
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.errors.compactMap { $0 as? TestError } == [first])
    }

    @Test func finishBeforeStartWithoutCancelIsIgnored() {
        let procedure = TestProcedure()
        procedure.log.enabled = false
        procedure.finish(with: TestError())
        #expect(!procedure.isFinished)
        #expect(procedure.errors.isEmpty)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test func dependencyAddedAfterStartIsIgnored() {
        let late = TestProcedure(name: "Late")
        let procedure = HookProcedure { procedure in
            procedure.addDependency(late)
            procedure.finish()
        }
        procedure.log.enabled = false
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
        #expect(!late.isFinished)
        #expect(procedure.dependencies.isEmpty)
    }

    @Test func selfDependencyIsIgnored() {
        let procedure = TestProcedure()
        procedure.log.enabled = false
        procedure.addDependency(procedure)
        #expect(procedure.dependencies.isEmpty)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
    }

    @Test func dependenciesFinishBeforeTheDependentExecutesAndAreListedUntilItFinishes() {
        let first = HookProcedure(name: "First")
        let sawFirstFinished = PKMutex<Bool?>(nil)
        let second = HookProcedure(name: "Second") { procedure in
            let finished = first.isFinished
            sawFirstFinished.withLock { $0 = finished }
            procedure.finish()
        }
        second.addDependency(first)
        #expect(second.dependencies.count == 1)
        let queue = ProcedureQueue()
        queue.add(procedures: second, first)
        waitForAll(first, second)
        // Only isFinished is promised: the dependency's DidFinish observers may still be running (as in
        // ProcedureKit, where dependents start on the isFinished change).
        #expect(sawFirstFinished.withLock { $0 } == true)
        #expect(second.dependencies.isEmpty)
    }

    @Test func removeDependencyBeforeEnqueueRemovesIt() {
        let dependency = TestProcedure()
        let procedure = TestProcedure()
        procedure.addDependencies(dependency, TestProcedure())
        procedure.removeDependency(dependency)
        #expect(procedure.dependencies.count == 1)
        procedure.removeAllDependencies()
        #expect(procedure.dependencies.isEmpty)
    }

    @Test func failedDependencyDoesNotStopTheDependent() {
        let dependency = TestProcedure(error: TestError())
        let procedure = TestProcedure()
        procedure.addDependency(dependency)
        let queue = ProcedureQueue()
        queue.add(procedures: dependency, procedure)
        waitForAll(dependency, procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test func enqueueingTwiceOnTheSameQueueExecutesOnce() {
        let procedure = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        queue.add(procedure: procedure)  // logs a warning and is ignored
        waitForAll(procedure)
        waitUntilEmpty(queue)
        #expect(procedure.executeCount == 1)
    }

    @Test func enqueueingOnAnotherQueueExecutesOnce() {
        let procedure = TestProcedure(delay: 0.01)
        let first = ProcedureQueue()
        let second = ProcedureQueue()
        first.add(procedure: procedure)
        second.add(procedure: procedure)  // logs a warning and is ignored
        waitForAll(procedure)
        waitUntilEmpty(first)
        waitUntilEmpty(second)
        #expect(procedure.executeCount == 1)
        #expect(second.operationCount == 0)
    }

    @Test func plainOperationQueueRunsAProcedureWithoutDependencies() {
        let procedure = TestProcedure()
        procedure.log.enabled = false
        let queue = OperationQueue()
        queue.addOperation(procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
    }

    @Test
    func plainOperationQueueCancelsAProcedureWithAnUnfinishedDependency() {
        let dependency = TestProcedure(name: "NeverRun")
        let procedure = TestProcedure()
        procedure.log.enabled = false
        procedure.addDependency(dependency)
        let queue = OperationQueue()
        queue.addOperation(procedure)
        waitForAll(procedure, timeout: hangTimeout)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        PKExpectProcedureError(procedure, equals: ProcedureKitError(context: .notStartedByProcedureQueue))
    }

    @Test func directStartWithAnUnfinishedDependencyFinishesCancelled() {
        let dependency = TestProcedure(name: "NeverRun")
        let procedure = TestProcedure()
        procedure.log.enabled = false
        procedure.addDependency(dependency)
        procedure.start()
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureError(procedure, equals: ProcedureKitError(context: .notStartedByProcedureQueue))
        #expect(procedure.isCancelled)
    }

    @Test func produceRunsTheOperationAndTellsWillAddAndDidAddObservers() {
        let ran = Atomic<Bool>(false)
        let produced = BlockOperation { ran.store(true, ordering: .relaxed) }
        let procedure = TestProcedure(produced: produced)
        let recorder = EventRecorder()
        procedure.addObserver(recorder)
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        waitUntilEmpty(queue)
        let didRun = ran.load(ordering: .relaxed)
        #expect(didRun)
        #expect(produced.isFinished)
        let kinds = recorder.kinds(for: procedure)
        // produce is queued behind the event in progress (execute), so WillAdd comes after DidExecute.
        #expect(kinds == [.didAttach, .willExecute, .didExecute, .willAdd, .didAdd, .willFinish, .didFinish])
    }

    @Test func producedProcedureRunsOnTheSameQueue() {
        let child = TestProcedure(name: "Child")
        let parent = TestProcedure(name: "Parent", produced: child)
        let observer = RecordingQueueObserver()
        let queue = ProcedureQueue()
        queue.delegate = observer
        queue.add(procedure: parent)
        waitForAll(parent, child)
        #expect(child.didExecute)
        #expect(observer.callbacks(for: "Child").first == "willAdd")
    }

    @Test func produceOnAProcedureThatIsNotEnqueuedThrowsNoQueue() {
        let procedure = TestProcedure()
        #expect(throws: ProcedureKitError.noQueue()) {
            try procedure.produce(operation: BlockOperation {})
        }
    }

    @Test func willAddTokenHeldByAnObserverDelaysTheAdd() {
        let keeper = TokenKeeper()
        let child = TestProcedure(name: "Child")
        let parent = TestProcedure(name: "Parent", produced: child)
        parent.addObserver(keeper)
        let queue = ProcedureQueue()
        queue.add(procedure: parent)
        waitFor(keeper.willAdd, "willAdd")
        #expect(!child.isEnqueued)
        keeper.release()
        waitForAll(parent, child)
        #expect(child.didExecute)
    }

    /// Keeps the pending-add token until the test drops it.
    final class TokenKeeper: ProcedureObserver {
        let held = PKMutex<PendingEvent?>(nil)
        let willAdd = DispatchSemaphore(value: 0)

        func procedure(
            _ procedure: Procedure, willAdd newOperation: Operation, pendingAddOperation: PendingAddOperationEvent
        ) {
            held.withLock { $0 = pendingAddOperation }
            willAdd.signal()
        }

        func release() { held.withLock { $0 = nil } }
    }

    @Test func testProcedureOutputsHelloInputOrHelloWorld() {
        let withInput = TestProcedure()
        withInput.input = .ready("Swift")
        let withoutInput = TestProcedure()
        let queue = ProcedureQueue()
        queue.add(procedures: withInput, withoutInput)
        waitForAll(withInput, withoutInput)
        PKExpectProcedureOutput(withInput, "Hello Swift")
        PKExpectProcedureOutput(withoutInput, "Hello World")
    }
}
