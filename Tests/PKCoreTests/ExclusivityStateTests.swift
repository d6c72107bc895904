import Testing

@testable import PKCore

/// The mutual-exclusion bookkeeping on its own: arrival order per category, all-or-nothing grants, waiting requests
/// that hold and reserve nothing, idempotent removal.
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

    @Test func aMultiCategoryRequestIsGrantedOnlyWhenEveryCategoryIsFree() {
        var state = State()
        _ = state.request(["A"], for: "p1", ancestors: [])
        _ = state.request(["B"], for: "p2", ancestors: [])
        #expect(state.request(["A", "B"], for: "both", ancestors: []) == .queued(granted: false))
        #expect(state.remove("p1") == [])  // B is still held by p2
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

    @Test func aRequestWaitingForOneCategoryKeepsNobodyOutOfTheOthers() {
        // The nested deadlock the randomized scenarios found: "group" holds A; "sibling" asks for A and B; the
        // group's child then asks for B. Reserving B for the sibling made the child wait for the sibling, the sibling
        // for the group, and the group for its child.
        var state = State()
        _ = state.request(["A"], for: "group", ancestors: [])
        #expect(state.request(["A", "B"], for: "sibling", ancestors: []) == .queued(granted: false))
        #expect(state.request(["B"], for: "child", ancestors: ["group"]) == .queued(granted: true))
        #expect(state.holder(of: "B") == "child")
        #expect(state.remove("child") == [])  // A is still held by the group
        #expect(state.remove("group") == ["sibling"])
        #expect(state.holder(of: "A") == "sibling")
        #expect(state.holder(of: "B") == "sibling")
    }

    @Test func aFreedCategoryGoesToTheEarliestRequestThatCanGoNotToTheFirstInLine() {
        var state = State()
        _ = state.request(["A"], for: "holdsA", ancestors: [])
        _ = state.request(["B"], for: "holdsB", ancestors: [])
        _ = state.request(["A", "B"], for: "needsBoth", ancestors: [])  // first in A's line
        _ = state.request(["A"], for: "needsA", ancestors: [])
        #expect(state.remove("holdsA") == ["needsA"])  // needsBoth still waits for B
        #expect(state.remove("holdsB") == [])  // A is held by needsA again
        #expect(state.remove("needsA") == ["needsBoth"])
    }

    @Test func oneReleaseGrantsEveryRequestThatCanGoInArrivalOrder() {
        var state = State()
        _ = state.request(["A", "B", "C"], for: "holder", ancestors: [])
        _ = state.request(["A", "D"], for: "first", ancestors: [])
        _ = state.request(["B", "D"], for: "conflictsWithFirst", ancestors: [])
        _ = state.request(["C"], for: "independent", ancestors: [])
        _ = state.request(["B"], for: "behindTheConflict", ancestors: [])
        #expect(state.remove("holder") == ["first", "independent", "behindTheConflict"])
        #expect(state.remove("first") == [])  // conflictsWithFirst still waits for B
        #expect(state.remove("behindTheConflict") == ["conflictsWithFirst"])
    }

    @Test func withdrawingAWaitingRequestForSeveralCategoriesLeavesTheLinesIntact() {
        var state = State()
        _ = state.request(["A"], for: "holdsA", ancestors: [])
        _ = state.request(["A", "B"], for: "withdrawn", ancestors: [])
        _ = state.request(["A", "B"], for: "next", ancestors: [])
        #expect(state.remove("withdrawn") == [])
        #expect(state.remove("holdsA") == ["next"])
        #expect(state.remove("next") == [])
        #expect(state.requests.isEmpty)
    }
}
