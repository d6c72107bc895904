import Foundation
import PKConditions
import PKTesting
import Testing

/// `BlockCondition`: true executes, false ignores (cancelled without error), a throw fails with the error wrapped.
struct BlockConditionTests {

    @Test func seedExampleCompilesAndRuns() {
        let trueOrFalse = true
        let myProcedure = TestProcedure()
        myProcedure.add(condition: BlockCondition { return trueOrFalse })
        let queue = ProcedureQueue()
        queue.add(procedure: myProcedure)
        waitForAll(myProcedure)
        #expect(myProcedure.didExecute)
        PKExpectProcedureFinished(myProcedure)
    }

    @Test func trueExecutesAndSetsOutput() {
        let condition = BlockCondition { true }
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(condition.output.outcome == "satisfied")
    }

    @Test func falseCancelsWithoutErrorAndDoesNotExecute() {
        let condition = BlockCondition { false }
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure)
        #expect(condition.output.outcome == "ignored")
    }

    @Test func throwingCancelsWithConditionFailedWithTheThrownError() {
        let thrown = TestError()
        let condition = BlockCondition { throw thrown }
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(!procedure.didExecute)
        PKExpectProcedureCancelled(procedure, withErrors: true)
        #expect(procedure.kitError == ProcedureKitError.conditionFailed(with: thrown))
        #expect(procedure.kitError?.underlyingError as? TestError == thrown)
        #expect(condition.output.outcome == "failed")
    }

    @Test func aFailureIsLoggedWithTheConditionsName() {
        let writer = TestableLogWriter()
        let procedure = TestProcedure(name: "Upload")
        procedure.add(condition: BlockCondition(name: "IsOnline") { throw TestError() })
        GlobalLogSettings.with(enabled: true, severity: .info, writer: writer) {
            ProcedureQueue().add(procedure: procedure)
            waitForAll(procedure)
        }
        #expect(procedure.kitError?.context == .conditionFailed)
        #expect(writer.lines.contains { $0.contains("Upload") && $0.contains("condition IsOnline failed") })
    }

    @Test func defaultNameIsTheTypeName() {
        #expect(BlockCondition { true }.conditionName == "BlockCondition")
        #expect(BlockCondition(name: "Custom") { true }.conditionName == "Custom")
    }

    @Test func blockIsCalledOncePerEvaluation() {
        let calls = PKMutex(0)
        let procedure = TestProcedure()
        procedure.add(
            condition: BlockCondition {
                calls.withLock { $0 += 1 }
                return true
            })
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(calls.withLock { $0 } == 1)
    }
}
