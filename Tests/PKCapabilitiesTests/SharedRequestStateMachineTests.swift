import Testing

@testable import PKCapabilities

/// Every state × input of the shared request machine.
struct SharedRequestStateMachineTests {

    typealias Machine = SharedRequestStateMachine<String, Int, String>

    @Test func theFirstRequestStartsAndLaterOnesJoin() {
        var machine = Machine()
        #expect(machine.request("a").startedGeneration == 0)
        #expect(machine.request("b").isNone)
        #expect(machine.inFlightGeneration == 0)
        guard case .settle(nil, nil) = machine.ended(generation: 0) else {
            Issue.record("expected settle")
            return
        }
        #expect(machine.request("c").isNone)  // joins while the outcome is applied
        #expect(machine.settled().completed == ["a", "b", "c"])
        #expect(machine.request("d").startedGeneration == 1)
    }

    @Test func anAnswerForAnEarlierGenerationIsIgnored() {
        var machine = Machine()
        _ = machine.request("a")
        _ = machine.ended(generation: 0)
        _ = machine.settled()
        _ = machine.request("b")
        #expect(machine.ended(generation: 0).isNone)
        #expect(machine.inFlightGeneration == 1)
    }

    @Test func endingWhenIdleOrSettlingIsIgnored() {
        var machine = Machine()
        #expect(machine.ended(generation: 0).isNone)
        _ = machine.request("a")
        _ = machine.ended(generation: 0)
        #expect(machine.ended(generation: 0).isNone)
        #expect(machine.inFlightGeneration == nil)
    }

    @Test func theTimerIsKeptWhileInFlightAndHandedBackWhenItEnds() {
        var machine = Machine()
        _ = machine.request("a")
        #expect(machine.armed(5, generation: 0).isNone)
        #expect(machine.working("task", generation: 0).isNone)
        guard case .settle(let timer, let work) = machine.ended(generation: 0) else {
            Issue.record("expected settle")
            return
        }
        #expect(timer == 5)
        #expect(work == "task")
    }

    @Test func aTimerArmedAfterItsRequestEndedIsCancelled() {
        var machine = Machine()
        guard case .cancelTimer(4) = machine.armed(4, generation: 0) else {
            Issue.record("idle: expected cancelTimer")
            return
        }
        _ = machine.request("a")
        _ = machine.ended(generation: 0)
        guard case .cancelTimer(6) = machine.armed(6, generation: 0) else {
            Issue.record("settling: expected cancelTimer")
            return
        }
        _ = machine.settled()
        _ = machine.request("b")
        guard case .cancelTimer(8) = machine.armed(8, generation: 0) else {
            Issue.record("another generation: expected cancelTimer")
            return
        }
    }

    @Test func workStartedAfterItsRequestEndedIsCancelled() {
        var machine = Machine()
        guard case .cancelWork("early") = machine.working("early", generation: 0) else {
            Issue.record("idle: expected cancelWork")
            return
        }
        _ = machine.request("a")
        _ = machine.ended(generation: 0)
        guard case .cancelWork("late") = machine.working("late", generation: 0) else {
            Issue.record("settling: expected cancelWork")
            return
        }
    }
}

extension SharedRequestStateMachine.Action {
    var isNone: Bool { if case .none = self { true } else { false } }
    var startedGeneration: UInt64? { if case .start(let generation) = self { generation } else { nil } }
    var completed: [Waiter]? { if case .complete(let waiters) = self { waiters } else { nil } }
}
