import PKCore
import PKTesting
import Testing

@testable import PKObservers

/// The per-procedure table observer values share: an inline first entry, a dictionary for the rest.
@Suite struct PerProcedureStateTests {

    @Test func entriesForSeveralProceduresAreKeptApartAndRemovedOnce() {
        let state = PerProcedureState<Int>()
        let procedures = (0..<5).map { TestProcedure(name: "P\($0)") }
        for (index, procedure) in procedures.enumerated() {
            state.update(for: procedure, initial: 0) { $0 += index + 1 }
        }
        #expect(state.count == 5)
        state.update(for: procedures[0], initial: 0) { $0 += 10 }
        state.update(for: procedures[3], initial: 0) { $0 += 10 }
        #expect(state.remove(for: procedures[3]) == 14)
        #expect(state.remove(for: procedures[3]) == nil)
        #expect(state.remove(for: procedures[0]) == 11)
        #expect(state.count == 3)
        // A new entry after the inline one was taken goes inline again; the others stay where they were.
        state.update(for: procedures[0], initial: 100) { $0 += 1 }
        #expect(state.remove(for: procedures[0]) == 101)
        #expect(state.remove(for: procedures[1]) == 2)
        #expect(state.remove(for: procedures[2]) == 3)
        #expect(state.remove(for: procedures[4]) == 5)
        #expect(state.count == 0)
    }

    @Test func anEntryMovedBetweenTheInlineSlotAndTheDictionaryKeepsItsValue() {
        let state = PerProcedureState<[String]>()
        let first = TestProcedure(name: "First")
        let second = TestProcedure(name: "Second")
        state.update(for: first, initial: []) { $0.append("a") }
        state.update(for: second, initial: []) { $0.append("b") }
        _ = state.remove(for: first)
        state.update(for: second, initial: []) { $0.append("c") }
        #expect(state.remove(for: second) == ["b", "c"])
        #expect(state.count == 0)
    }
}
