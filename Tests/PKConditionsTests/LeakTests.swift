import Foundation
import PKConditions
import PKTesting
import Testing

/// Procedures, their conditions and produced dependencies are released once the procedures finish.
struct LeakTests {

    @Test func satisfiedConditionsAndProducedDependenciesAreReleased() async {
        let leaks = LeakCheck()
        let queue = ProcedureQueue()
        do {
            let produced = TestProcedure(name: "Produced")
            let producing = RecordingCondition(name: "Producing")
            producing.produceDependency(produced)
            let and = TrueCondition() && producing
            let negated = !FalseCondition()
            let exclusive = MutuallyExclusive<LeakTests>(category: uniqueCategory())
            let procedure = TestProcedure()
            procedure.add(condition: and)
            procedure.add(condition: negated)
            procedure.add(condition: exclusive)
            procedure.add(condition: NoFailedDependenciesCondition())
            leaks.track([procedure, produced, producing, and, negated, exclusive])
            queue.add(procedure: procedure)
            await procedure.waitUntilFinished()
            #expect(procedure.didExecute)
        }
        await PKExpectReleased(leaks)
    }

    @Test func failedConditionsAreReleased() async {
        let leaks = LeakCheck()
        let queue = ProcedureQueue()
        do {
            let or = FalseCondition() || BlockCondition { throw TestError() }
            let silent = SilentCondition(FalseCondition())
            let procedure = TestProcedure()
            procedure.add(condition: or)
            procedure.add(condition: silent)
            leaks.track([procedure, or, silent])
            queue.add(procedure: procedure)
            await procedure.waitUntilFinished()
            #expect(procedure.isCancelled)
        }
        await PKExpectReleased(leaks)
    }

    @Test func conditionsOfAProcedureCancelledDuringEvaluationAreReleased() async {
        let leaks = LeakCheck()
        let queue = ProcedureQueue()
        do {
            let stuck = StuckCondition()
            let longRunning = GateProcedure(name: "LongRunning")
            let waiting = RecordingCondition(name: "Waiting")
            waiting.produceDependency(longRunning)
            let compound = IgnoredCondition(stuck) && waiting
            let procedure = TestProcedure()
            procedure.add(condition: compound)
            leaks.track([procedure, stuck, longRunning, waiting, compound])
            queue.add(procedure: procedure)
            _ = await Task.detached { stuck.evaluating.wait(timeout: .now() + hangTimeout) }.value
            procedure.cancel()
            await procedure.waitUntilFinished()
            #expect(!procedure.didExecute)
            #expect(await waitForFinish(longRunning, timeout: hangTimeout))
        }
        await PKExpectReleased(leaks)
    }
}
