import Foundation
import PKTesting
import Testing

@testable import PKCore

/// Every member of a dependency cycle is cancelled together with `dependencyCycle`, whenever and however the
/// cycle was closed (issue 22 §4): by procedures added one call at a time, late, by a group's children, or by a
/// dependency added to a waiting procedure.
struct DependencyCycleArrivalTests {

    /// Checks that each of `procedures` finished cancelled with a `dependencyCycle` error, without executing.
    private func expectCancelledForCycle(
        _ procedures: [TestProcedure], sourceLocation: SourceLocation = #_sourceLocation
    ) {
        for procedure in procedures {
            #expect(!procedure.didExecute, "\(procedure.procedureName) ran", sourceLocation: sourceLocation)
            let error = procedure.errors.first as? ProcedureKitError
            guard case .dependencyCycle? = error?.context else {
                Issue.record(
                    "\(procedure.procedureName) not cancelled for a cycle: \(procedure.errors)",
                    sourceLocation: sourceLocation)
                continue
            }
        }
    }

    /// "x→y" is "x depends on y". A→B and B→A close a cycle as soon as B arrives, and it is cancelled. C arrives
    /// later with C→A while B→C: the three form one cycle, so C is cancelled too, though A and B finished before
    /// C arrived. (C ran: its only dependency, A, had finished.)
    @Test func aProcedureArrivingLateOnACycleAlreadyCancelledIsCancelledToo() {
        let (a, b, c) = (TestProcedure(name: "A"), TestProcedure(name: "B"), TestProcedure(name: "C"))
        a.addDependency(b)
        b.addDependency(a)
        b.addDependency(c)
        let queue = ProcedureQueue()
        queue.add(procedure: a)
        queue.add(procedure: b)
        #expect(waitForAll([a, b]))
        expectCancelledForCycle([a, b])

        c.addDependency(a)
        queue.add(procedure: c)
        #expect(waitForAll([c]))
        expectCancelledForCycle([c])
        if case .dependencyCycle(let names)? = (c.errors.first as? ProcedureKitError)?.context {
            #expect(Set(names) == ["A", "B", "C"])
        }
    }

    /// A cycle added one `add` call at a time, in every order, is cancelled whole and nothing in it runs.
    @Test(arguments: [[0, 1, 2, 3], [3, 2, 1, 0], [1, 3, 0, 2], [2, 0, 3, 1]])
    func aCycleAddedOneCallAtATimeIsCancelledWhole(order: [Int]) {
        let procedures = ["A", "B", "C", "D"].map { TestProcedure(name: $0) }
        for index in procedures.indices { procedures[index].addDependency(procedures[(index + 1) % 4]) }
        let queue = ProcedureQueue()
        for index in order { queue.add(procedure: procedures[index]) }
        #expect(waitForAll(procedures))
        expectCancelledForCycle(procedures)
    }

    /// F3's overlapping cycles (a→b, c→a, d→c, b→d, b→a) among a group's children, one child slow to be added:
    /// the group's private queue looked stalled after A and B, cancelled them, and C and D then ran.
    @Test func aGroupsChildrenClosingCyclesSlowlyAreCancelledWhole() {
        let procedures = ["A", "B", "C", "D"].map { TestProcedure(name: $0) }
        let (a, b, c, d) = (procedures[0], procedures[1], procedures[2], procedures[3])
        a.addDependency(b)
        c.addDependency(a)
        d.addDependency(c)
        b.addDependency(d)
        b.addDependency(a)
        let group = GroupProcedure(operations: procedures)
        group.queue.addObserver(SlowAddObserver(slowFor: ObjectIdentifier(c)))
        ProcedureQueue().add(procedure: group)
        #expect(waitForAll([group]))
        expectCancelledForCycle(procedures)
    }

    /// A→B on a queue where B waits for a procedure never added: the queue is stalled, and its stall check found
    /// no cycle. Then B is made to depend on A, which closes one: it is cancelled at once (nothing would look again).
    @Test func aDependencyAddedToAWaitingProcedureThatClosesACycleCancelsIt() {
        let (a, b) = (TestProcedure(name: "A"), TestProcedure(name: "B"))
        let never = TestProcedure(name: "Never added")
        a.addDependency(b)
        b.addDependency(never)
        let queue = ProcedureQueue()
        queue.add(procedures: a, b)
        // Wait for the stall check the adds scheduled to have run (and found nothing).
        let deadline = Date().addingTimeInterval(hangTimeout)
        while queue.state.withLock({ $0.stallCheckScheduled }), Date() < deadline { sched_yield() }
        #expect(!a.isFinished && !b.isFinished)

        b.addDependency(a)
        #expect(waitForAll([a, b], timeout: 10))
        expectCancelledForCycle([a, b])
        never.cancel()
    }

    /// Long chains added in reverse order and shuffled, one call at a time or together, run in order with no
    /// cycle reported: the arrival checks cost little per procedure and never see a cycle that is not there.
    @Test(arguments: [(true, false), (true, true), (false, false), (false, true)])
    func longChainsAddedOutOfOrderRunWithoutACycle(together: Bool, shuffled: Bool) {
        let count = 5_000
        let procedures = (0..<count).map { _ in TestProcedure() }
        for index in 1..<count { procedures[index].addDependency(procedures[index - 1]) }
        let queue = ProcedureQueue()
        let order = shuffled ? Array(procedures.indices.shuffled()) : Array(procedures.indices.reversed())
        if together {
            queue.add(procedures: order.map { procedures[$0] })
        } else {
            for index in order { queue.add(procedure: procedures[index]) }
        }
        #expect(waitForAll(procedures))
        #expect(procedures.allSatisfy { $0.isFinished && !$0.isCancelled && $0.errors.isEmpty })
    }
}
