import Foundation
import PKConditions
import PKTesting
import Testing

/// ProcedureKit issues 47 and 486: a group and its child in the same mutually exclusive category hung forever,
/// the child waiting for the group's lock and the group for its child. Here the child fails fast instead.
struct GroupExclusionTests {

    @Test func aChildInTheGroupsOwnCategoryEndsCancelledNamingTheCategoryInsteadOfHanging() {
        let category = uniqueCategory()
        let child = TestProcedure(name: "Child")
        child.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        let group = GroupProcedure(operations: [child])
        group.add(condition: MutuallyExclusive<GroupProcedure>(category: category))
        ProcedureQueue().add(procedure: group)
        #expect(waitForAll(group))
        #expect(!child.didExecute)
        #expect(child.isCancelled)
        let error = child.error as? ProcedureKitError
        #expect(error?.context == .mutualExclusionDeadlock(categories: [category]))
        #expect(group.isFinished)
    }

    @Test func aChildInAnotherCategoryRunsNormally() {
        let child = TestProcedure(name: "Child")
        child.add(condition: MutuallyExclusive<TestProcedure>(category: uniqueCategory("child")))
        let group = GroupProcedure(operations: [child])
        group.add(condition: MutuallyExclusive<GroupProcedure>(category: uniqueCategory("group")))
        ProcedureQueue().add(procedure: group)
        #expect(waitForAll(group))
        #expect(child.didExecute)
        PKExpectProcedureFinished(group)
    }

    @Test func aGrandchildInTheOutermostGroupsCategoryFailsFastToo() {
        let category = uniqueCategory()
        let grandchild = TestProcedure(name: "Grandchild")
        grandchild.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        let inner = GroupProcedure(operations: [grandchild])
        let outer = GroupProcedure(operations: [inner])
        outer.add(condition: MutuallyExclusive<GroupProcedure>(category: category))
        ProcedureQueue().add(procedure: outer)
        #expect(waitForAll(outer))
        #expect(!grandchild.didExecute)
        #expect((grandchild.error as? ProcedureKitError)?.context == .mutualExclusionDeadlock(categories: [category]))
    }

    @Test func theCategoryIsFreeAgainAfterTheGroupFinishes() {
        let category = uniqueCategory()
        let group = GroupProcedure(operations: [TestProcedure()])
        group.add(condition: MutuallyExclusive<GroupProcedure>(category: category))
        let later = TestProcedure(name: "Later")
        later.add(condition: MutuallyExclusive<TestProcedure>(category: category))
        later.addDependency(group)
        ProcedureQueue().add(procedures: group, later)
        #expect(waitForAll(group, later))
        #expect(later.didExecute)
    }
}
