import PKConditions
import PKTesting
import Testing

private struct DatabaseWrite {}

/// `MutuallyExclusive<T>`: always satisfied, adds one category, named after `T`.
struct MutuallyExclusiveTests {

    @Test func nameAndDefaultCategorySpellOutTheType() {
        let condition = MutuallyExclusive<DatabaseWrite>()
        #expect(condition.conditionName == "MutuallyExclusive<DatabaseWrite>")
        #expect(condition.mutuallyExclusiveCategories == ["MutuallyExclusive<DatabaseWrite>"])
        #expect(MutuallyExclusive<Int>().conditionName == "MutuallyExclusive<Int>")
    }

    @Test func defaultCategoryIsTheSameForEveryInstanceOfOneTypeAndDiffersBetweenTypes() {
        #expect(MutuallyExclusive<DatabaseWrite>.defaultCategory == "MutuallyExclusive<DatabaseWrite>")
        #expect(MutuallyExclusive<DatabaseWrite>.defaultCategory == "MutuallyExclusive<DatabaseWrite>")
        #expect(MutuallyExclusive<Int>.defaultCategory == "MutuallyExclusive<Int>")
        #expect(
            MutuallyExclusive<DatabaseWrite>().mutuallyExclusiveCategories
                == MutuallyExclusive<DatabaseWrite>().mutuallyExclusiveCategories)
    }

    @Test func customCategoryKeepsTheName() {
        let condition = MutuallyExclusive<DatabaseWrite>(category: "writes")
        #expect(condition.conditionName == "MutuallyExclusive<DatabaseWrite>")
        #expect(condition.mutuallyExclusiveCategories == ["writes"])
    }

    @Test func procedureExecutesAndOutputIsSatisfied() {
        let condition = MutuallyExclusive<DatabaseWrite>(category: uniqueCategory())
        let procedure = TestProcedure()
        procedure.add(condition: condition)
        ProcedureQueue().add(procedure: procedure)
        waitForAll(procedure)
        #expect(procedure.didExecute)
        PKExpectProcedureFinished(procedure)
        #expect(condition.output.outcome == "satisfied")
    }
}
