import Foundation
import PKTesting
import Testing

@testable import PKCore

/// Finished procedures, their observers and their queue are deallocated once the test lets go of them.
struct LeakTests {

    @Test func finishedProceduresObserversAndQueueAreReleased() async {
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            leaks.track(queue, name: "queue")
            var procedures: [Procedure] = []
            for index in 0..<10 {
                let procedure = TestProcedure(name: "P\(index)", error: index.isMultiple(of: 3) ? TestError() : nil)
                let recorder = EventRecorder()
                procedure.addObserver(recorder)
                procedure.addDidFinishBlockObserver { _, _ in }
                if index.isMultiple(of: 4) { procedure.cancel() }
                leaks.track(procedure, name: "P\(index)")
                leaks.track(recorder, name: "recorder of P\(index)")
                procedures.append(procedure)
            }
            for (first, second) in zip(procedures, procedures.dropFirst()) { second.addDependency(first) }
            queue.add(procedures: procedures)
            for procedure in procedures { await procedure.waitUntilFinished() }
            await queue.allOperationsFinished()
        }
        await PKExpectReleased(leaks)
    }

    @Test func blockProcedureReleasesWhatItsBlockCaptured() async {
        final class Captured: Sendable {}
        let leaks = LeakCheck()
        do {
            let captured = Captured()
            leaks.track(captured, name: "captured")
            let queue = ProcedureQueue()
            let procedure = BlockProcedure { _ = captured }
            leaks.track(procedure, name: "block procedure")
            try? await queue.run(procedure)
        }
        await PKExpectReleased(leaks)
    }

    @Test func droppedQueueKeepsRunningItsWorkAndIsThenReleased() async {
        let leaks = LeakCheck()
        let procedure = TestProcedure(delay: 0.01)
        do {
            let queue = ProcedureQueue()
            leaks.track(queue, name: "queue")
            queue.add(procedure: procedure)
        }
        await procedure.waitUntilFinished()
        PKExpectProcedureFinished(procedure)
        await PKExpectReleased(leaks)
    }

    @Test func manyDroppedQueuesRunTheirWorkAndAreAllReleased() async {
        // Each queue is let go of at once, while its worker loops may still be waiting for a thread: a waiting
        // loop keeps its queue alive, and the queue goes once the last loop has ended.
        let leaks = LeakCheck()
        var procedures: [Procedure] = []
        for index in 0..<200 {
            let queue = ProcedureQueue(maxConcurrentOperationCount: index % 3 + 1)
            leaks.track(queue, name: "queue \(index)")
            for _ in 0..<4 {
                let procedure = BlockProcedure {}
                procedures.append(procedure)
                queue.add(procedure: procedure)
            }
        }
        for procedure in procedures {
            await procedure.waitUntilFinished()
            PKExpectProcedureFinished(procedure)
        }
        await PKExpectReleased(leaks)
    }

    @Test func tenThousandLongChainRunsAndDeallocates() async {
        let count = 10_000
        let leaks = LeakCheck()
        do {
            let queue = ProcedureQueue()
            var chain: [Procedure] = []
            chain.reserveCapacity(count)
            for index in 0..<count {
                let procedure = BlockProcedure {}
                if let previous = chain.last { procedure.addDependency(previous) }
                chain.append(procedure)
                if index % 1000 == 0 || index == count - 1 { leaks.track(procedure, name: "link \(index)") }
            }
            queue.add(procedures: chain)
            let last = chain[count - 1]
            chain.removeAll()
            #expect(await waitForFinish(last, timeout: 60))
            PKExpectProcedureFinished(last)
            await queue.allOperationsFinished()
        }
        await PKExpectReleased(leaks, timeout: 10)
    }

    @Test func unstartedChainIsReleasedWithoutRecursing() async {
        let count = 10_000
        let leaks = LeakCheck()
        do {
            var previous: Procedure?
            for index in 0..<count {
                let procedure = BlockProcedure {}
                if let previous { procedure.addDependency(previous) }
                previous = procedure
                if index == 0 { leaks.track(procedure, name: "first") }
            }
            leaks.track(previous!, name: "last")
        }
        await PKExpectReleased(leaks)
    }
}
