import Foundation
import PKCore
import PKObservers
import PKTesting
import Synchronization
import Testing

/// The Operations 2.x observer vocabulary: four single-event protocols and their block observers.
@Suite struct Operations2ObserverTests {

    @Test func theSeedSnippetRunsItsBlockJustBeforeExecute() {
        let order = Mutex<[String]>([])
        let operation = BlockProcedure { order.withLock { $0.append("execute") } }
        operation.addObserver(
            StartedObserver { op in
                order.withLock { $0.append("Lets go! (\(op.isExecuting ? "executing" : "not yet executing"))") }
            })
        ProcedureQueue().add(procedure: operation)
        #expect(waitForAll(operation))
        #expect(order.withLock { $0 } == ["Lets go! (not yet executing)", "execute"])
    }

    @Test func aFinishedObserverRunsBeforeTheProcedureIsFinishedWithItsErrors() {
        let seen = Mutex<(isFinished: Bool, errors: Int)?>(nil)
        let procedure = TestProcedure(error: TestError())
        procedure.addObserver(
            FinishedObserver { op, errors in
                seen.withLock { $0 = (op.isFinished, errors.count) }
            })
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll(procedure))
        let observed = seen.withLock { $0 }
        #expect(observed?.isFinished == false)
        #expect(observed?.errors == 1)
    }

    @Test func aCancelledObserverRunsOnceWhenCancelledBeforeStarting() {
        let count = Atomic(0)
        let procedure = TestProcedure()
        procedure.addObserver(CancelledObserver { _ in count.add(1, ordering: .relaxed) })
        procedure.cancel()
        procedure.cancel()
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll(procedure))
        #expect(count.load(ordering: .relaxed) == 1)
        #expect(!procedure.didExecute)
    }

    @Test func aCancelledObserverRunsWhenCancelledWhileExecuting() {
        let count = Atomic(0)
        let procedure = HeldProcedure()
        procedure.addObserver(CancelledObserver { _ in count.add(1, ordering: .relaxed) })
        ProcedureQueue().add(procedure: procedure)
        #expect(procedure.waitUntilStarted())
        procedure.cancel()
        #expect(waitForAll(procedure))
        #expect(count.load(ordering: .relaxed) == 1)
    }

    @Test func aProducedObserverSeesEveryProducedOperation() {
        let produced = Mutex<[String]>([])
        let child = TestProcedure(name: "Child")
        let producer = TestProcedure(name: "Producer", produced: child)
        producer.addObserver(
            ProducedObserver { op, new in
                produced.withLock { $0.append("\(op.procedureName) produced \(new.operationName)") }
            })
        ProcedureQueue().add(procedure: producer)
        #expect(waitForAll(producer, child))
        #expect(produced.withLock { $0 } == ["Producer produced Child"])
    }

    @Test func severalObserversOfEachKindAllRunInTheOrderTheyWereAdded() {
        let order = Mutex<[String]>([])
        let procedure = TestProcedure()
        for index in 1...3 {
            procedure.addObserver(StartedObserver { _ in order.withLock { $0.append("started \(index)") } })
            procedure.addObserver(FinishedObserver { _, _ in order.withLock { $0.append("finished \(index)") } })
        }
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll(procedure))
        #expect(
            order.withLock { $0 } == [
                "started 1", "started 2", "started 3", "finished 1", "finished 2", "finished 3",
            ])
    }

    @Test func aTypeAdoptingSeveralProtocolsHearsEachEvent() throws {
        final class Recorder: OperationDidStartObserver, OperationDidCancelObserver, OperationDidFinishObserver,
            OperationDidProduceOperationObserver, Sendable
        {
            let events = Mutex<[String]>([])
            func didStartOperation(_ operation: Procedure) { events.withLock { $0.append("start") } }
            func didCancelOperation(_ operation: Procedure) { events.withLock { $0.append("cancel") } }
            func operation(_ operation: Procedure, didProduceOperation newOperation: Operation) {
                events.withLock { $0.append("produce") }
            }
            func didFinishOperation(_ operation: Procedure, errors: [any Error]) {
                events.withLock { $0.append("finish(\(errors.count))") }
            }
        }
        let recorder = Recorder()
        let procedure = HeldProcedure()
        procedure.addObserver(recorder)
        ProcedureQueue().add(procedure: procedure)
        #expect(procedure.waitUntilStarted())
        try procedure.produce(operation: BlockProcedure {})
        procedure.cancel(with: TestError())
        #expect(waitForAll(procedure))
        #expect(recorder.events.withLock { $0 } == ["start", "produce", "cancel", "finish(1)"])
    }

    @Test func observersAddedAfterFinishHearNeitherStartNorWillFinish() {
        let count = Atomic(0)
        let procedure = TestProcedure()
        ProcedureQueue().add(procedure: procedure)
        #expect(waitForAll(procedure))
        procedure.addObserver(FinishedObserver { _, _ in count.add(1, ordering: .relaxed) })
        procedure.addObserver(StartedObserver { _ in count.add(100, ordering: .relaxed) })
        // Attached after finish, an observer gets didAttach and did-finish, in the order observers were added: once
        // a later observer hears did-finish, the two before it have heard all they will (a FinishedObserver maps to
        // will-finish, which has passed).
        let last = DispatchSemaphore(value: 0)
        procedure.addObserver(BlockObserver<Procedure>(didFinish: { _, _ in last.signal() }))
        #expect(waitFor(last, "the last observer's did-finish"))
        #expect(count.load(ordering: .relaxed) == 0)
    }

    @Test func blockObserversDoNotKeepTheirProcedureAfterItFinishes() {
        let leaks = LeakCheck()
        do {
            let procedure = TestProcedure()
            procedure.addObserver(StartedObserver { _ in })
            procedure.addObserver(CancelledObserver { _ in })
            procedure.addObserver(ProducedObserver { _, _ in })
            procedure.addObserver(FinishedObserver { _, _ in })
            leaks.track(procedure)
            ProcedureQueue().add(procedure: procedure)
            #expect(waitForAll(procedure))
        }
        #expect(leaks.waitUntilReleased().isEmpty)
    }
}
