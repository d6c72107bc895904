import Testing

@testable import PKCore

extension ProgressNodeState {
    /// A child's change, numbered `revision`.
    mutating func childChanged(
        _ child: ObjectIdentifier, from old: ProgressWeight, to new: ProgressWeight, value: ProcedureProgress,
        revision: UInt64 = 1, generation: UInt64 = 0
    ) -> Effects {
        childChanged(child, Change(from: old, to: new, value: value, revision: revision, generation: generation))
    }
}

/// The progress state machine alone: values, weights, roll-ups, and what each event asks its owner to do.
struct ProgressNodeStateTests {

    @Test func aLatestParentIgnoresAChangeOlderThanTheOneItTook() {
        var state = ProgressNodeState(mode: .latest, isFinished: false)
        let node = ProgressNode(mode: .own)
        let child = ObjectIdentifier(node)
        let open = ProgressWeight(total: 1, done: 0, isFinished: false)
        _ = state.childAdopted(child, weight: open, value: .notStarted)
        _ = state.childChanged(
            child, from: open, to: ProgressWeight(total: 1, done: 0.6, isFinished: false),
            value: ProcedureProgress(fractionCompleted: 0.6), revision: 2)
        // Revision 1 arrives late (reported first, on another thread).
        _ = state.childChanged(
            child, from: open, to: ProgressWeight(total: 1, done: 0.3, isFinished: false),
            value: ProcedureProgress(fractionCompleted: 0.3), revision: 1)
        #expect(state.value.fractionCompleted == 0.6)
        withExtendedLifetime(node) {}
    }

    @Test func aQueueStartsAfreshExactlyWhateverRoundingItsSumsGathered() {
        var state = ProgressNodeState(mode: .queue, isFinished: false)
        let nodes = (ProgressNode(mode: .own), ProgressNode(mode: .own), ProgressNode(mode: .own))
        let (a, b, c) = (ObjectIdentifier(nodes.0), ObjectIdentifier(nodes.1), ObjectIdentifier(nodes.2))
        func weight(_ done: Double, finished: Bool = false) -> ProgressWeight {
            ProgressWeight(total: 1, done: done, isFinished: finished)
        }
        _ = state.childAdopted(a, weight: weight(0), value: .notStarted)
        _ = state.childAdopted(b, weight: weight(0), value: .notStarted)
        _ = state.childChanged(a, from: weight(0), to: weight(0.1), value: .notStarted)
        _ = state.childChanged(b, from: weight(0), to: weight(0.7), value: .notStarted)
        _ = state.childChanged(a, from: weight(0.1), to: weight(0.3), value: .notStarted)
        _ = state.childChanged(b, from: weight(0.7), to: weight(1, finished: true), value: .notStarted)
        _ = state.childChanged(a, from: weight(0.3), to: weight(1, finished: true), value: .notStarted)
        _ = state.childAdopted(c, weight: weight(0), value: .notStarted)
        #expect(state.value.totalUnitCount == 1)
        #expect(state.value.fractionCompleted == 0)
        withExtendedLifetime(nodes) {}
    }

    @Test func hugeSumsReadAsTheLargestUnitCount() {
        #expect(ProgressNodeState.units(Double(Int64.max) * 2) == .max)
        #expect(ProgressNodeState.units(.nan) == 0)
        #expect(ProgressNodeState.units(-1) == 0)
        #expect(ProgressNodeState.units(42.9) == 42)
    }

    @Test func unitsReportedGiveTheFractionAndWeighTheirTotal() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        _ = state.report(completed: 30, of: 120, message: "copying")
        #expect(state.value.fractionCompleted == 0.25)
        #expect(state.value.completedUnitCount == 30)
        #expect(state.value.totalUnitCount == 120)
        #expect(state.value.message == "copying")
        #expect(state.weight == ProgressWeight(total: 120, done: 30, isFinished: false))
    }

    @Test func aFractionReportedWeighsOneAndIsClamped() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        _ = state.report(fraction: 1.7, message: nil)
        #expect(state.value.fractionCompleted == 1)
        #expect(state.weight == ProgressWeight(total: 1, done: 1, isFinished: false))
        _ = state.report(fraction: -3, message: nil)
        #expect(state.value.fractionCompleted == 0)
        _ = state.report(fraction: .nan, message: "kept")
        #expect(state.value.fractionCompleted == 0)
        #expect(state.value.message == "kept")
    }

    @Test func unitsBeyondTheTotalCountAsTheTotal() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        _ = state.report(completed: 500, of: 100, message: nil)
        #expect(state.value.completedUnitCount == 100)
        #expect(state.value.fractionCompleted == 1)
        _ = state.report(completed: -5, of: 100, message: nil)
        #expect(state.value.completedUnitCount == 0)
    }

    @Test func aZeroTotalReportsOnlyItsMessage() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        _ = state.report(completed: 3, of: 10, message: nil)
        _ = state.report(completed: 1, of: 0, message: "still going")
        #expect(state.value.completedUnitCount == 3)
        #expect(state.value.message == "still going")
    }

    @Test func finishingCompletesTheWorkAndLaterReportsAreIgnored() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        _ = state.report(completed: 2, of: 8, message: nil)
        _ = state.finish()
        #expect(
            state.value
                == ProcedureProgress(
                    fractionCompleted: 1, completedUnitCount: 8, totalUnitCount: 8, message: nil, isFinished: true))
        #expect(state.weight == ProgressWeight(total: 8, done: 8, isFinished: true))
        _ = state.report(completed: 1, of: 8, message: "late")
        #expect(state.value.completedUnitCount == 8)
        #expect(state.value.message == nil)
    }

    @Test func aSumAddsItsChildrensWeightsAsTheyChange() {
        var state = ProgressNodeState(mode: .sum, isFinished: false)
        let a = ObjectIdentifier(ProgressNode(mode: .own))
        let b = ObjectIdentifier(ProgressNode(mode: .own))
        _ = state.childAdopted(a, weight: ProgressWeight(total: 100, done: 0, isFinished: false), value: .notStarted)
        _ = state.childAdopted(b, weight: ProgressWeight(total: 1, done: 0, isFinished: false), value: .notStarted)
        _ = state.childChanged(
            a, from: ProgressWeight(total: 100, done: 0, isFinished: false),
            to: ProgressWeight(total: 100, done: 50, isFinished: false),
            value: ProcedureProgress(fractionCompleted: 0.5, message: "half"))
        #expect(state.value.completedUnitCount == 50)
        #expect(state.value.totalUnitCount == 101)
        #expect(state.value.message == "half")
        _ = state.childChanged(
            b, from: ProgressWeight(total: 1, done: 0, isFinished: false),
            to: ProgressWeight(total: 1, done: 1, isFinished: true), value: .notStarted)
        #expect(state.value.fractionCompleted == 51.0 / 101.0)
    }

    @Test func changesFromOneChildCommute() {
        // Two reports of one child applied in the opposite order give the same sum.
        let child = ObjectIdentifier(ProgressNode(mode: .own))
        let w0 = ProgressWeight(total: 10, done: 0, isFinished: false)
        let w1 = ProgressWeight(total: 10, done: 4, isFinished: false)
        let w2 = ProgressWeight(total: 10, done: 10, isFinished: true)
        var inOrder = ProgressNodeState(mode: .sum, isFinished: false)
        var reversed = ProgressNodeState(mode: .sum, isFinished: false)
        for state in [0, 1] {
            var machine = state == 0 ? inOrder : reversed
            _ = machine.childAdopted(child, weight: w0, value: .notStarted)
            if state == 0 {
                _ = machine.childChanged(child, from: w0, to: w1, value: .notStarted)
                _ = machine.childChanged(child, from: w1, to: w2, value: .notStarted)
                inOrder = machine
            } else {
                _ = machine.childChanged(child, from: w1, to: w2, value: .notStarted)
                _ = machine.childChanged(child, from: w0, to: w1, value: .notStarted)
                reversed = machine
            }
        }
        #expect(inOrder.value == reversed.value)
        #expect(inOrder.value.fractionCompleted == 1)
    }

    @Test func aQueueStartsAfreshOnceEverythingItCountedFinished() {
        var state = ProgressNodeState(mode: .queue, isFinished: false)
        let first = ObjectIdentifier(ProgressNode(mode: .own))
        let open = ProgressWeight(total: 1, done: 0, isFinished: false)
        let done = ProgressWeight(total: 1, done: 1, isFinished: true)
        _ = state.childAdopted(first, weight: open, value: .notStarted)
        _ = state.childChanged(first, from: open, to: done, value: .notStarted)
        #expect(state.value.fractionCompleted == 1)
        #expect(!state.value.isFinished)
        let second = ObjectIdentifier(ProgressNode(mode: .own))
        _ = state.childAdopted(second, weight: open, value: .notStarted)
        #expect(state.value.totalUnitCount == 1)
        #expect(state.value.fractionCompleted == 0)
    }

    @Test func aQueueIgnoresAChangeComputedBeforeItStartedAfresh() throws {
        // A child reports half, then finishes; the finish reaches the queue first (the two were computed under the
        // child's lock and sent after it, from two threads). The queue is idle, a new child starts it afresh, and
        // then the half arrives: it belongs to the sums that are gone.
        var queue = ProgressNodeState(mode: .queue, isFinished: false)
        let nodes = (ProgressNode(mode: .queue), ProgressNode(mode: .own))
        var first = ProgressNodeState(mode: .own, isFinished: false)
        let firstGeneration = queue.generationOfNextChild
        guard let (weight, value, revision) = first.adopt(by: nodes.0, generation: firstGeneration) else {
            Issue.record("not adopted")
            return
        }
        _ = queue.childAdopted(ObjectIdentifier(nodes.1), weight: weight, value: value, revision: revision)
        let half = try #require(first.report(fraction: 0.5, message: nil).change)
        let finish = try #require(first.finish().change)
        _ = queue.childChanged(ObjectIdentifier(nodes.1), finish)
        let secondGeneration = queue.generationOfNextChild
        #expect(secondGeneration != firstGeneration)
        _ = queue.childAdopted(
            ObjectIdentifier(ProgressNode(mode: .own)), weight: ProgressWeight(total: 1, done: 0, isFinished: false),
            value: .notStarted)
        _ = queue.childChanged(ObjectIdentifier(nodes.1), half)
        #expect(queue.value.totalUnitCount == 1)
        #expect(queue.value.fractionCompleted == 0, "the late half of the first child does not count")
        withExtendedLifetime(nodes) {}
    }

    @Test func aSumDoesNotStartAfreshWhileAChildIsUnfinished() {
        var state = ProgressNodeState(mode: .queue, isFinished: false)
        let open = ProgressWeight(total: 1, done: 0, isFinished: false)
        _ = state.childAdopted(ObjectIdentifier(ProgressNode(mode: .own)), weight: open, value: .notStarted)
        _ = state.childAdopted(ObjectIdentifier(ProgressNode(mode: .own)), weight: open, value: .notStarted)
        #expect(state.value.totalUnitCount == 2)
    }

    @Test func latestFollowsTheNewestChildOnlyAndIgnoresEarlierOnes() {
        var state = ProgressNodeState(mode: .latest, isFinished: false)
        // The nodes are kept alive, so that their identifiers differ.
        let nodes = (ProgressNode(mode: .own), ProgressNode(mode: .own))
        let first = ObjectIdentifier(nodes.0)
        let second = ObjectIdentifier(nodes.1)
        let open = ProgressWeight(total: 1, done: 0, isFinished: false)
        _ = state.childAdopted(first, weight: open, value: .notStarted)
        _ = state.childChanged(
            first, from: open, to: ProgressWeight(total: 1, done: 0.9, isFinished: false),
            value: ProcedureProgress(fractionCompleted: 0.9))
        #expect(state.value.fractionCompleted == 0.9)
        _ = state.childAdopted(second, weight: open, value: ProcedureProgress(fractionCompleted: 0))
        #expect(state.value.fractionCompleted == 0)
        _ = state.childChanged(
            first, from: open, to: ProgressWeight(total: 1, done: 1, isFinished: true),
            value: ProcedureProgress(fractionCompleted: 1, isFinished: true))
        #expect(state.value.fractionCompleted == 0, "the earlier attempt's finish does not count")
        _ = state.finish()
        #expect(state.value.fractionCompleted == 1)
        #expect(state.value.isFinished)
        withExtendedLifetime(nodes) {}
    }

    @Test func finishedChildrenCountedLateWeighOneEach() {
        var state = ProgressNodeState(mode: .sum, isFinished: false)
        _ = state.countFinishedChildren(3)
        _ = state.childAdopted(
            ObjectIdentifier(ProgressNode(mode: .own)), weight: ProgressWeight(total: 1, done: 0, isFinished: false),
            value: .notStarted)
        #expect(state.value.completedUnitCount == 3)
        #expect(state.value.totalUnitCount == 4)
    }

    @Test func aNodeIsAdoptedByOneParentOnly() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        let parent = ProgressNode(mode: .sum)
        let other = ProgressNode(mode: .sum)
        #expect(state.adopt(by: parent) != nil)
        #expect(state.adopt(by: other) == nil)
        #expect(state.parent === parent)
    }

    @Test func aChangeTellsTheParentTheWeightItHadAndHasNow() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        let parent = ProgressNode(mode: .sum)
        _ = state.adopt(by: parent)
        let effects = state.report(completed: 5, of: 10, message: nil)
        #expect(effects.parent === parent)
        #expect(effects.change?.from == ProgressWeight(total: 1, done: 0, isFinished: false))
        #expect(effects.change?.to == ProgressWeight(total: 10, done: 5, isFinished: false))
        #expect(!effects.startDelivering, "nobody subscribed")
    }

    @Test func oneThreadDeliversAtATimeAndNewSubscribersGetTheCurrentValue() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        let (first, effects) = state.subscribe { _ in }
        #expect(effects.startDelivering)
        #expect(!state.report(fraction: 0.5, message: nil).startDelivering, "a delivery is under way")
        let delivery = state.nextDelivery()
        #expect(delivery?.0.fractionCompleted == 0.5)
        #expect(delivery?.1.map(\.id) == [first])
        #expect(state.nextDelivery() == nil)
        // The value did not change: only the new subscriber is given it.
        let (second, again) = state.subscribe { _ in }
        #expect(again.startDelivering)
        #expect(state.nextDelivery()?.1.map(\.id) == [second])
        #expect(state.nextDelivery() == nil)
    }

    @Test func theFinishedValueIsTheLastDeliveredAndLetsGoOfSubscribers() {
        var state = ProgressNodeState(mode: .own, isFinished: false)
        _ = state.subscribe { _ in }
        _ = state.nextDelivery()
        _ = state.nextDelivery()
        #expect(state.finish().startDelivering)
        #expect(state.nextDelivery()?.0.isFinished == true)
        #expect(state.nextDelivery() == nil)
        #expect(state.unsubscribe(1) == nil, "already let go of")
    }
}
