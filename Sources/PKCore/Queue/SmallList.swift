/// An ordered list that keeps a single element inline and allocates only from the second one on.
///
/// Most procedures have at most one dependency and at most one dependent (a chain), so their lists never touch
/// the heap; a longer list is an ordinary array. Not thread-safe: its owner guards it (a procedure's lists live
/// under the procedure's mutex).
///
/// PERF(W3, W9): a chain's procedures allocate nothing for their dependency lists (W3's time, W9's bytes).
struct SmallList<Element> {
    private enum Storage {
        case empty
        case one(Element)
        case many([Element])
    }

    private var storage = Storage.empty

    /// An empty list.
    init() {}

    /// Whether the list has no elements.
    var isEmpty: Bool {
        if case .empty = storage { return true }
        return false
    }

    /// How many elements the list has.
    var count: Int {
        switch storage {
        case .empty: return 0
        case .one: return 1
        case .many(let elements): return elements.count
        }
    }

    /// The elements, in order, as an array (allocates for a single element).
    var array: [Element] {
        switch storage {
        case .empty: return []
        case .one(let element): return [element]
        case .many(let elements): return elements
        }
    }

    /// Adds `element` last.
    mutating func append(_ element: Element) {
        switch storage {
        case .empty:
            storage = .one(element)
        case .one(let first):
            storage = .many([first, element])
        case .many(var elements):
            storage = .empty  // so that `elements` is uniquely referenced and appends in place
            elements.append(element)
            storage = .many(elements)
        }
    }

    /// Adds every element of `other` last, in order.
    mutating func append(contentsOf other: SmallList<Element>) {
        for element in other { append(element) }
    }

    /// Removes and returns the last element, if any.
    mutating func popLast() -> Element? {
        switch storage {
        case .empty:
            return nil
        case .one(let element):
            storage = .empty
            return element
        case .many(var elements):
            storage = .empty  // so that `elements` is uniquely referenced and shrinks in place
            let last = elements.popLast()
            switch elements.count {
            case 0: break
            case 1: storage = .one(elements[0])
            default: storage = .many(elements)
            }
            return last
        }
    }

    /// Removes every element for which `shouldBeRemoved` is true, keeping the others in order.
    mutating func removeAll(where shouldBeRemoved: (Element) throws -> Bool) rethrows {
        var kept = SmallList()
        for element in self where try !shouldBeRemoved(element) {
            kept.append(element)
        }
        self = kept
    }
}

extension SmallList: Sequence {
    /// Iterates the elements in order.
    struct Iterator: IteratorProtocol {
        fileprivate var single: Element?
        fileprivate var rest: IndexingIterator<[Element]>?

        mutating func next() -> Element? {
            if let element = single {
                single = nil
                return element
            }
            return rest?.next()
        }
    }

    func makeIterator() -> Iterator {
        switch storage {
        case .empty: return Iterator(single: nil, rest: nil)
        case .one(let element): return Iterator(single: element, rest: nil)
        case .many(let elements): return Iterator(single: nil, rest: elements.makeIterator())
        }
    }

    var underestimatedCount: Int { count }
}
