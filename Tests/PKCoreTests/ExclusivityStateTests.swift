import Testing

@testable import PKCore

/// The mutual-exclusion bookkeeping on its own: FIFO per category, all-or-nothing grants, idempotent removal.
struct ExclusivityStateTests {

    typealias State = ExclusivityState<String>

    @Test func firstRequestIsGrantedAtOnce() {
        var state = State()
        #expect(state.request(["A"], for: "p1", ancestors: []) == .queued(granted: true))
        #expect(state.holder(of: "A") == "p1")
    }

    @Test func laterRequestsWaitInArrivalOrder() {
        var state = State()
        _ = state.request(["A"], for: "p1", ancestors: [])
        #expect(state.request(["A"], for: "p2", ancestors: []) == .queued(granted: false))
        #expect(state.request(["A"], for: "p3", ancestors: []) == .queued(granted: false))
        #expect(state.remove("p1") == ["p2"])
        #expect(state.remove("p2") == ["p3"])
        #expect(state.remove("p3") == [])
        #expect(state.holder(of: "A") == nil)
    }

    @Test func aMultiCategoryRequestIsGrantedOnlyWhenFirstInEveryCategory() {
        var state = State()
        _ = state.request(["A"], for: "p1", ancestors: [])
        _ = state.request(["B"], for: "p2", ancestors: [])
        #expect(state.request(["A", "B"], for: "both", ancestors: []) == .queued(granted: false))
        #expect(state.remove("p1") == [])  // still behind p2 in B
        #expect(state.remove("p2") == ["both"])
        #expect(state.holder(of: "A") == "both")
        #expect(state.holder(of: "B") == "both")
    }

    @Test func oppositeOrdersCannotDeadlockBecauseRequestsEnterEveryQueueAtOnce() {
        var state = State()
        #expect(state.request(["A", "B"], for: "p1", ancestors: []) == .queued(granted: true))
        #expect(state.request(["B", "A"], for: "p2", ancestors: []) == .queued(granted: false))
        #expect(state.remove("p1") == ["p2"])
    }

    @Test func withdrawingAWaitingRequestReleasesNobodyElse() {
        var state = State()
        _ = state.request(["A"], for: "holder", ancestors: [])
        _ = state.request(["A"], for: "waiter", ancestors: [])
        _ = state.request(["A"], for: "last", ancestors: [])
        #expect(state.remove("waiter") == [])
        #expect(state.holder(of: "A") == "holder")
        #expect(state.remove("holder") == ["last"])
    }

    @Test func removingTwiceIsHarmless() {
        var state = State()
        _ = state.request(["A"], for: "p1", ancestors: [])
        _ = state.request(["A"], for: "p2", ancestors: [])
        #expect(state.remove("p1") == ["p2"])
        #expect(state.remove("p1") == [])
        #expect(state.holder(of: "A") == "p2")
    }

    @Test func aSecondRequestFromTheSameOwnerChangesNothing() {
        var state = State()
        _ = state.request(["A"], for: "p1", ancestors: [])
        #expect(state.request(["A"], for: "p1", ancestors: []) == .duplicate)
        #expect(state.remove("p1") == [])
        #expect(state.holder(of: "A") == nil)
    }

    @Test func aCategoryHeldByAnAncestorFailsFastInsteadOfQueueing() {
        var state = State()
        _ = state.request(["A", "B"], for: "parent", ancestors: [])
        #expect(state.request(["A", "C"], for: "child", ancestors: ["parent"]) == .deadlock(["A"]))
        #expect(state.requests["child"] == nil)
        // An unrelated procedure still queues normally.
        #expect(state.request(["A"], for: "other", ancestors: []) == .queued(granted: false))
    }

    @Test func manyWaitersInOneCategoryAreServedInOrder() {
        var state = State()
        let owners = (0..<1_000).map { "p\($0)" }
        for owner in owners { _ = state.request(["X"], for: owner, ancestors: []) }
        var served: [String] = [owners[0]]
        for owner in owners { served.append(contentsOf: state.remove(owner)) }
        #expect(served == owners)
    }
}
