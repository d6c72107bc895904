import Testing

@testable import PKCore

/// The procedure's dependency and dependent lists: order through every size, and popping without copying.
struct SmallListTests {

    private final class Token {}

    private func makeList(_ elements: [Int]) -> SmallList<Int> {
        var list = SmallList<Int>()
        for element in elements { list.append(element) }
        return list
    }

    @Test func newListIsEmpty() {
        var list = SmallList<Int>()
        #expect(list.isEmpty)
        #expect(list.count == 0)
        #expect(list.array == [])
        #expect(list.popLast() == nil)
        #expect(list.allSatisfy { _ in false })
    }

    @Test func iteratesInOrderInEveryForm() {
        #expect(Array(makeList([])) == [])
        #expect(Array(makeList([7])) == [7])
        #expect(Array(makeList([7, 8, 9])) == [7, 8, 9])
    }

    @Test func appendsKeepTheirOrderAcrossTheInlineAndArrayForms() {
        var list = SmallList<Int>()
        for (index, value) in [10, 20, 30, 40].enumerated() {
            list.append(value)
            #expect(list.count == index + 1)
            #expect(!list.isEmpty)
        }
        #expect(list.array == [10, 20, 30, 40])
        #expect(Array(list) == [10, 20, 30, 40])
        #expect(list.underestimatedCount == 4)
    }

    @Test func popLastReturnsElementsInReverseUntilEmpty() {
        var list = makeList([1, 2, 3])
        #expect(list.popLast() == 3)
        #expect(list.array == [1, 2])
        #expect(list.popLast() == 2)
        #expect(list.array == [1])
        #expect(list.popLast() == 1)
        #expect(list.isEmpty)
        #expect(list.popLast() == nil)
        list.append(4)
        #expect(list.array == [4])
    }

    @Test func removeAllWhereKeepsTheOthersInOrder() {
        var list = makeList([1, 2, 3, 4, 5])
        list.removeAll { $0 % 2 == 0 }
        #expect(list.array == [1, 3, 5])
        list.removeAll { $0 != 3 }
        #expect(list.array == [3])
        list.removeAll { _ in true }
        #expect(list.isEmpty)
    }

    @Test func appendContentsOfAddsInOrder() {
        var list = makeList([1])
        let other = makeList([2, 3])
        list.append(contentsOf: other)
        #expect(list.array == [1, 2, 3])
        #expect(other.array == [2, 3])
    }

    @Test func allSatisfyChecksEveryElement() {
        var list = SmallList<Int>()
        list.append(2)
        #expect(list.allSatisfy { $0 == 2 })
        list.append(3)
        #expect(!list.allSatisfy { $0 == 2 })
        #expect(list.allSatisfy { $0 > 1 })
    }

    @Test func aPoppedElementIsHeldOnlyByTheCaller() {
        // Releasing a long chain iteratively relies on this: a popped procedure that nobody else holds must be
        // uniquely referenced, so its own dependencies can be taken before it is released.
        var list = SmallList<Token>()
        for _ in 0..<3 { list.append(Token()) }
        while var token = list.popLast() {
            #expect(isKnownUniquelyReferenced(&token))
        }
        list.append(Token())
        var single = list.popLast()!
        #expect(isKnownUniquelyReferenced(&single))
    }

    @Test func copiesAreIndependent() {
        var list = makeList([1, 2])
        var copy = list
        copy.append(3)
        _ = list.popLast()
        #expect(list.array == [1])
        #expect(copy.array == [1, 2, 3])
    }
}
