import Foundation
import PKTesting
import Synchronization
import Testing

@testable import PKCore

struct BlockProcedureTests {

    @Test func blockRunsOnceAndTheProcedureFinishes() {
        let count = Atomic<Int>(0)
        let procedure = BlockProcedure { count.add(1, ordering: .relaxed) }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let runs = count.load(ordering: .relaxed)
        #expect(runs == 1)
        PKExpectProcedureFinished(procedure)
    }

    @Test func throwingBlockFinishesWithTheError() {
        let error = TestError()
        let procedure = BlockProcedure { throw error }
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinishedWithErrors(procedure, count: 1)
        PKExpectProcedureError(procedure, equals: error)
        #expect(procedure.status == .failed)
    }

    @Test func cancelledBlockProcedureDoesNotRunItsBlock() {
        let ran = Atomic<Bool>(false)
        let procedure = BlockProcedure { ran.store(true, ordering: .relaxed) }
        procedure.cancel()
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        let didRun = ran.load(ordering: .relaxed)
        #expect(!didRun)
        PKExpectProcedureCancelled(procedure)
    }

    @Test func blockRunsOnTheQueuesUnderlyingQueue() {
        let key = DispatchSpecificKey<Int>()
        let underlying = DispatchQueue(label: "block.underlying")
        underlying.setSpecific(key: key, value: 42)
        let seen = Atomic<Int>(0)
        let procedure = BlockProcedure { seen.store(DispatchQueue.getSpecific(key: key) ?? -1, ordering: .relaxed) }
        let finished = DispatchSemaphore(value: 0)
        procedure.addDidFinishBlockObserver { _, _ in finished.signal() }  // before enqueueing; see ProcedureQueueTests
        let queue = ProcedureQueue(underlyingQueue: underlying)
        queue.add(procedure: procedure)
        waitFor(finished, "the procedure to finish")
        let value = seen.load(ordering: .relaxed)
        #expect(value == 42)
    }

    final class Subclassed: BlockProcedure, @unchecked Sendable {
        // @unchecked Sendable: no state of its own; the superclass guards its state.
    }

    @Test func blockProcedureCanBeSubclassedAndKeepsItsTypeName() {
        let procedure = Subclassed {}
        #expect(procedure.name == "Subclassed")
        let queue = ProcedureQueue()
        queue.add(procedure: procedure)
        waitForAll(procedure)
        PKExpectProcedureFinished(procedure)
    }
}
