/// A first-in, first-out list: amortised O(1) append and pop, and a popped element is released at once.
///
/// An array with a moving head: popped slots are cleared, and the live part is moved to the front once the
/// cleared prefix is at least half of the storage (and at least 1,024 slots), so memory stays proportional to
/// what is queued. Not thread-safe: its owner guards it (a queue's state lives under the queue's mutex).
struct FIFO<Element> {
    private var slots: [Element?] = []
    private var head = 0

    /// Whether nothing is queued.
    var isEmpty: Bool { head == slots.count }

    /// How many elements are queued.
    var count: Int { slots.count - head }

    /// Queues `element` last.
    mutating func append(_ element: Element) {
        slots.append(element)
    }

    /// Takes the first element, if any.
    mutating func popFirst() -> Element? {
        guard head < slots.count else { return nil }
        let element = slots[head].take()
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

    /// Removes and returns, in order, the elements for which `shouldRemove` is true; the others keep their order.
    mutating func removeAll(where shouldRemove: (Element) -> Bool) -> [Element] {
        var removed: [Element] = []
        var kept: [Element?] = []
        for case let element? in slots[head...] {
            if shouldRemove(element) { removed.append(element) } else { kept.append(element) }
        }
        slots = kept
        head = 0
        return removed
    }
}
