/// A first-in, first-out list with amortised O(1) append and pop.
///
/// An array with a moving head. A popped element stays in its slot until the list empties or the live part is
/// moved to the front, which happens once the popped prefix is at least half of the storage (and at least 1,024
/// slots): memory stays proportional to what is queued, and at most that many popped elements are kept alive.
/// (Clearing each slot as it is popped was measured: it makes the last release of a finished procedure happen
/// on the worker, interleaved with the producer's allocations, and cost W1 about 25% more CPU.) Not
/// thread-safe: its owner guards it (a queue's state lives under the queue's mutex).
struct FIFO<Element> {
    private var slots: [Element] = []
    private var head = 0

    /// Whether nothing is queued.
    var isEmpty: Bool { head == slots.count }

    /// How many elements are queued.
    var count: Int { slots.count - head }

    /// The first element, if any.
    var first: Element? { head < slots.count ? slots[head] : nil }

    /// The first queued element that satisfies `predicate`, if any.
    func first(where predicate: (Element) -> Bool) -> Element? {
        slots[head...].first(where: predicate)
    }

    /// Queues `element` last.
    mutating func append(_ element: Element) {
        slots.append(element)
    }

    /// Takes the first element, if any.
    mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head]
        head += 1
        if head == slots.count {
            slots.removeAll(keepingCapacity: true)
            head = 0
        } else if head >= 1024 && head * 2 >= slots.count {
            slots.removeFirst(head)
            head = 0
        }
        return element
    }

    /// Removes the first occurrence of `element`, wherever it is queued (O(n) unless it is first).
    mutating func remove(_ element: Element) where Element: Equatable {
        guard let index = slots[head...].firstIndex(of: element) else { return }
        if index == head {
            _ = popFirst()
        } else {
            slots.remove(at: index)
        }
    }

    /// Removes and returns the first element that satisfies `predicate`, if any (O(n) unless it is first).
    mutating func removeFirst(where predicate: (Element) -> Bool) -> Element? {
        guard let index = slots[head...].firstIndex(where: predicate) else { return nil }
        if index == head { return popFirst() }
        return slots.remove(at: index)
    }

    /// Removes and returns, in order, the elements for which `shouldRemove` is true; the others keep their order.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) -> [Element] {
        var removed: [Element] = []
        var kept: [Element] = []
        for element in slots[head...] {
            if shouldRemove(element) { removed.append(element) } else { kept.append(element) }
        }
        slots = kept
        head = 0
        return removed
    }
}
