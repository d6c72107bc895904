import Testing

@testable import PKCore

/// The queue's first-in, first-out list: order, counting, filtered removal and releasing popped elements.
struct FIFOTests {

    /// An object whose lifetime the release tests watch.
    private final class Token {}

    /// A weak reference to a ``Token``.
    private struct WeakToken {
        weak var token: Token?
    }

    /// Appends `count` new tokens to `fifo`, holding them only there; returns weak references to them, in order.
    private static func appendTokens(_ count: Int, to fifo: inout FIFO<Token>) -> [WeakToken] {
        var references: [WeakToken] = []
        for _ in 0..<count {
            let token = Token()
            fifo.append(token)
            references.append(WeakToken(token: token))
        }
        return references
    }

    @Test func newListIsEmpty() {
        var fifo = FIFO<Int>()
        #expect(fifo.isEmpty)
        #expect(fifo.count == 0)
        #expect(fifo.popFirst() == nil)
    }

    @Test func countAndIsEmptyFollowAppendsAndPops() {
        var fifo = FIFO<Int>()
        fifo.append(1)
        fifo.append(2)
        fifo.append(3)
        #expect(!fifo.isEmpty)
        #expect(fifo.count == 3)
        #expect(fifo.popFirst() == 1)
        #expect(fifo.count == 2)
        #expect(fifo.popFirst() == 2)
        #expect(fifo.popFirst() == 3)
        #expect(fifo.isEmpty)
        #expect(fifo.count == 0)
        #expect(fifo.popFirst() == nil)
        fifo.append(4)
        #expect(fifo.count == 1)
        #expect(fifo.popFirst() == 4)
        #expect(fifo.isEmpty)
    }

    /// Drives the list through its compaction (at least 1,024 popped slots, and at least half of the storage)
    /// several times, with appends interleaved, checking every pop and the count after each step.
    ///
    /// Phase 2 is where compaction must happen: after `k` rounds of one append and two pops, 2k slots of 3,000 + k
    /// are popped, which reaches half at k = 1,000 (2,000 popped of 4,000). The final drain crosses it again.
    @Test func orderIsPreservedAcrossCompactionWithInterleavedAppends() {
        var fifo = FIFO<Int>()
        var appended = 0
        var popped: [Int] = []
        var countMismatches: [String] = []

        func append() {
            fifo.append(appended)
            appended += 1
        }
        func pop() {
            if let element = fifo.popFirst() { popped.append(element) }
        }
        func checkCount(_ step: String) {
            let expected = appended - popped.count
            if fifo.count != expected || fifo.isEmpty != (expected == 0) {
                countMismatches.append("\(step): count \(fifo.count), isEmpty \(fifo.isEmpty), expected \(expected)")
            }
        }

        // Phase 1: a long backlog.
        for _ in 0..<3000 { append() }
        checkCount("after the backlog")
        // Phase 2: popping faster than appending, past the compaction point.
        for round in 0..<1200 {
            append()
            pop()
            pop()
            checkCount("popping faster, round \(round)")
        }
        // Phase 3: appending faster than popping.
        for round in 0..<1500 {
            append()
            append()
            pop()
            checkCount("appending faster, round \(round)")
        }
        // Phase 4: drain.
        while !fifo.isEmpty {
            pop()
            checkCount("draining")
        }

        #expect(countMismatches.count == 0, "first mismatches: \(countMismatches.prefix(3))")
        #expect(popped.count == appended)
        let firstOutOfOrder = popped.indices.first { popped[$0] != $0 }
        #expect(firstOutOfOrder == nil, "first out-of-order pop at index \(firstOutOfOrder ?? -1)")
        #expect(fifo.popFirst() == nil)
    }

    @Test func removeAllReturnsTheMatchesInOrderAndKeepsTheRestInOrder() {
        var fifo = FIFO<Int>()
        for element in 0..<20 { fifo.append(element) }
        // Pop a few first, so removal works on a list whose head has moved.
        for _ in 0..<5 { _ = fifo.popFirst() }
        let removed = fifo.removeAll { $0.isMultiple(of: 2) }
        #expect(removed == [6, 8, 10, 12, 14, 16, 18])
        #expect(fifo.count == 8)
        fifo.append(20)
        var rest: [Int] = []
        while let element = fifo.popFirst() { rest.append(element) }
        #expect(rest == [5, 7, 9, 11, 13, 15, 17, 19, 20])
    }

    @Test func removeAllWithNoMatchesKeepsEverything() {
        var fifo = FIFO<Int>()
        for element in 0..<5 { fifo.append(element) }
        #expect(fifo.removeAll { $0 > 100 }.isEmpty)
        #expect(fifo.count == 5)
        var rest: [Int] = []
        while let element = fifo.popFirst() { rest.append(element) }
        #expect(rest == [0, 1, 2, 3, 4])
    }

    @Test func firstIsTheNextElementToPop() {
        var fifo = FIFO<Int>()
        #expect(fifo.first == nil)
        for element in 0..<3 { fifo.append(element) }
        #expect(fifo.first == 0)
        _ = fifo.popFirst()
        #expect(fifo.first == 1)
    }

    @Test func removingAnElementKeepsTheOthersInOrder() {
        var fifo = FIFO<Int>()
        for element in 0..<6 { fifo.append(element) }
        _ = fifo.popFirst()
        fifo.remove(3)
        fifo.remove(1)
        fifo.remove(42)
        fifo.remove(0)
        #expect(fifo.count == 3)
        var rest: [Int] = []
        while let element = fifo.popFirst() { rest.append(element) }
        #expect(rest == [2, 4, 5])
    }

    @Test func removeAllOfEverythingLeavesAnEmptyList() {
        var fifo = FIFO<Int>()
        for element in 0..<5 { fifo.append(element) }
        #expect(fifo.removeAll { _ in true } == [0, 1, 2, 3, 4])
        #expect(fifo.isEmpty)
        #expect(fifo.count == 0)
        #expect(fifo.popFirst() == nil)
    }

    @Test func poppedElementsAreReleasedWhenTheListEmpties() {
        var fifo = FIFO<Token>()
        let references = Self.appendTokens(3, to: &fifo)
        #expect(references.allSatisfy { $0.token != nil })
        var pops = 0
        while fifo.popFirst() != nil { pops += 1 }
        #expect(pops == 3)
        #expect(fifo.isEmpty)
        #expect(references.allSatisfy { $0.token == nil }, "a popped token outlived the emptied list")
    }

    @Test func compactionReleasesPoppedElementsAndBoundsHowManyStayAlive() {
        var fifo = FIFO<Token>()
        let references = Self.appendTokens(3000, to: &fifo)
        var emptyPops = 0
        var mostPoppedAlive = 0
        for index in 0..<2500 {
            if fifo.popFirst() == nil { emptyPops += 1 }
            let poppedAlive = references[...index].filter { $0.token != nil }.count
            mostPoppedAlive = max(mostPoppedAlive, poppedAlive)
        }
        #expect(emptyPops == 0)
        // Popped elements are kept only until the popped prefix is compacted away: never more than the larger of
        // 1,024 and the number still queued plus one.
        #expect(mostPoppedAlive <= 1500, "\(mostPoppedAlive) popped tokens were alive at once")
        #expect(references[..<1000].allSatisfy { $0.token == nil }, "early popped tokens survived compaction")
        #expect(references[2500...].allSatisfy { $0.token != nil })
        #expect(fifo.count == 500)
    }
}
